//! The session's state and the records an `ask` returns.

use std::collections::HashSet;
use std::time::Duration;

use evident_index::{Config, Evidence};
use evident_llm::{CancelToken, ChatClient, Message, Protocol, Reply};
use serde::Serialize;

use crate::grounding::Citation;
use crate::intent::{DecidedBy, Intent};
use crate::registry::Registry;
use crate::tools::ToolContext;

/// Why a session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum FinishReason {
    Answered,
    RoundLimit,
    /// The model asked twice in a row for calls it had already made.
    Repeated,
    Denied,
    Cancelled,
    Error(SessionError),
}

/// Why a session ended in an error. Typed, so the binary chooses hints and
/// exit codes by kind; it serialises as its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    #[error("the question, the instructions and the tool descriptions need about {needed} tokens, \
             more than the model's context of {context} tokens: ask a shorter question or raise --context-tokens")]
    QuestionTooBig { needed: usize, context: u32 },
    #[error("the wall-time limit of {seconds} s was reached")]
    WallTime { seconds: u64 },
    #[error("the model replied twice without an answer or a tool call")]
    NoAnswer,
    /// The model server failed; `kind` says how.
    #[error("{message}")]
    Model {
        kind: evident_llm::LlmErrorKind,
        message: String,
    },
}

impl Serialize for SessionError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl FinishReason {
    pub fn name(&self) -> &'static str {
        match self {
            FinishReason::Answered => "answered",
            FinishReason::RoundLimit => "round_limit",
            FinishReason::Repeated => "repeated",
            FinishReason::Denied => "denied",
            FinishReason::Cancelled => "cancelled",
            FinishReason::Error(_) => "error",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Limits {
    /// Tool rounds (model steps that asked for tools).
    pub rounds: u32,
    pub calls_per_round: usize,
    pub wall_time: Duration,
    /// The model's context, in tokens: sets result budgets and compaction.
    pub context_tokens: u32,
    /// Run the question's obvious lookups before the first model call.
    pub prefetch: bool,
    /// Offer every tool with every option from the start, instead of the
    /// core tools with their required arguments (and `more_tools`).
    pub all_tools: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rounds: 6,
            calls_per_round: 8,
            wall_time: Duration::from_secs(600),
            context_tokens: 8192,
            prefetch: true,
            all_tools: false,
        }
    }
}

/// Where the final answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// The model, in the loop.
    Model,
    /// The last model call, tools withdrawn, from the evidence gathered.
    LastCall,
    /// No model answer: evident's list of the evidence gathered.
    EvidenceList,
}

/// What a question cost in model work, from the servers' own counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Time the server spent reading prompts, where it reports it (llama.cpp, Ollama).
    pub prompt_ms: u64,
    /// Calls identical to earlier ones, answered without running.
    pub repeats: usize,
    /// Calls evident ran before the first model call.
    pub prefetched: usize,
    /// What the question asks (`callers`, `docs`, `general`, ...).
    pub intent: Option<Intent>,
    /// Whether word stems or the constrained model call decided it.
    pub intent_from: Option<DecidedBy>,
}

/// The tools offered to every question unless the model asks for more.
pub(super) const CORE_TOOLS: &[&str] = &[
    "search_code",
    "find_symbol",
    "read_evidence",
    "find_importers",
    "get_callers",
    "analyze_impact",
];

/// The pseudo-tool that switches the session to every tool with every option.
pub(super) const MORE_TOOLS: &str = "more_tools";

/// What the first prompt asks when evident's lookups hold the answer. Small
/// models copy a literal `path:line` as their answer, so the format is said in words.
pub(super) const ANSWER_FROM_RESULTS: &str = "Answer the question in a sentence or two from these results. Give the file and line of each thing you name, as the results show them.";

/// The longest reply asked for. A call or a cited answer takes far less; on a
/// 2-core CPU a 1.5B model writes about 15 tokens a second, so a reply that
/// copies every record it was given is cut here rather than at a minute.
pub(super) const MAX_REPLY_TOKENS: u32 = 512;

/// Repeated calls in a row that end the tool phase.
pub(super) const MAX_REPEATS_IN_A_ROW: usize = 2;

/// What a finished `ask` returns.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub reason: FinishReason,
    pub answer: String,
    pub answered_by: AnsweredBy,
    pub citations: Vec<Citation>,
    pub rounds: u32,
    pub tool_calls: usize,
    pub stats: Stats,
}

pub(super) enum Step {
    Model,
    Tools(Box<Reply>),
    Compact,
    Finish(FinishReason),
}

/// One conversation with the model over one repository.
pub struct Session<'a> {
    pub client: &'a dyn ChatClient,
    pub model: String,
    pub protocol: Protocol,
    pub registry: &'a Registry,
    pub context: &'a ToolContext,
    pub config: Config,
    pub limits: Limits,
    pub cancel: CancelToken,
    pub(super) system: String,
    pub(super) messages: Vec<Message>,
    pub(super) always_allowed: HashSet<String>,
    pub(super) gathered: Vec<Evidence>,
    /// Skill bodies loaded, kept verbatim through compaction.
    pub(super) skills_loaded: Vec<String>,
    /// Where the question being answered sits in `messages` (compaction keeps it and what precedes it).
    pub(super) question_at: usize,
    /// The question as asked (the message may carry evident's lookups too).
    pub(super) question: String,
    /// Every call made for this question, by its normalised form, with its round and summary.
    pub(super) done_calls: Vec<(String, u32, String)>,
    /// `call → summary` of each call that ran, for the last answer.
    pub(super) findings: Vec<String>,
    /// The question's intent, which picks the tools offered.
    pub(super) intent: Intent,
    /// The intent's own tool result, printed under the answer.
    pub(super) facts: Option<(String, Vec<Evidence>)>,
    /// Every tool, every option (after `more_tools`, or by `Limits::all_tools`).
    pub(super) all_tools: bool,
    pub(super) stats: Stats,
    /// Calls in a row, across steps, that repeated earlier ones.
    pub(super) repeats_in_a_row: usize,
    /// The next model call is offered no tools (prefetch found the evidence).
    pub(super) answer_first: bool,
}
