//! The session: a bounded state machine,
//! `Prefetch → ModelStep → ToolStep → (CompactionStep) → ModelStep … → Finish`.
//! The model only proposes calls; each batch is validated whole, approved once
//! where a tool needs it, run (in parallel), and answered in call order, one
//! result per call, rejected, skipped and repeated ones included.
//!
//! Small models need the loop to carry them, so: the obvious lookups run
//! before the first model call (`prefetch`); a call identical to an earlier
//! one is not run again, and two in a row end the tool phase; and a session
//! never ends with nothing: when the model stops without an answer, one last
//! call without tools answers from the evidence gathered, and if that fails
//! too the answer is the list of what was found.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use evident_index::{Config, Evidence, Index};
use evident_llm::{
    run_turn, CancelToken, ChatClient, ChatRequest, Event, Message, Protocol, Reply, Role,
    ToolCall, ToolSchema, Usage,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::budget;
use crate::grounding::{self, Citation, Support};
mod answer;
mod approval;
mod compact;
mod events;
mod prompt;
mod tool_step;

use crate::intent::{DecidedBy, Intent};
use crate::registry::Registry;
pub use crate::render::render_output;
use crate::render::{evidence_digest, render_for_model};
use crate::tools::{Approval, ToolContext, ToolError, ToolOutput};
pub use approval::{Approver, Decision, NonInteractive};
use compact::estimate_tokens;
pub use events::AgentEvent;
use prompt::{has_words, system_prompt, LAST_CALL_INSTRUCTIONS};
use tool_step::{call_key, call_text, ToolStepEnd};

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
const CORE_TOOLS: &[&str] = &[
    "search_code",
    "find_symbol",
    "read_evidence",
    "find_importers",
    "get_callers",
    "analyze_impact",
];

/// The pseudo-tool that switches the session to every tool with every option.
const MORE_TOOLS: &str = "more_tools";

/// What the first prompt asks when evident's lookups hold the answer. Small
/// models copy a literal `path:line` as their answer, so the format is said in words.
const ANSWER_FROM_RESULTS: &str = "Answer the question in a sentence or two from these results. Give the file and line of each thing you name, as the results show them.";

/// The longest reply asked for. A call or a cited answer takes far less; on a
/// 2-core CPU a 1.5B model writes about 15 tokens a second, so a reply that
/// copies every record it was given is cut here rather than at a minute.
const MAX_REPLY_TOKENS: u32 = 512;

/// Repeated calls in a row that end the tool phase.
const MAX_REPEATS_IN_A_ROW: usize = 2;

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

enum Step {
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
    system: String,
    messages: Vec<Message>,
    always_allowed: HashSet<String>,
    gathered: Vec<Evidence>,
    /// Skill bodies loaded, kept verbatim through compaction.
    skills_loaded: Vec<String>,
    /// Where the question being answered sits in `messages` (compaction keeps it and what precedes it).
    question_at: usize,
    /// The question as asked (the message may carry evident's lookups too).
    question: String,
    /// Every call made for this question, by its normalised form, with its round and summary.
    done_calls: Vec<(String, u32, String)>,
    /// `call → summary` of each call that ran, for the last answer.
    findings: Vec<String>,
    /// The question's intent, which picks the tools offered.
    intent: Intent,
    /// The intent's own tool result, printed under the answer.
    facts: Option<(String, Vec<Evidence>)>,
    /// Every tool, every option (after `more_tools`, or by `Limits::all_tools`).
    all_tools: bool,
    stats: Stats,
    /// Calls in a row, across steps, that repeated earlier ones.
    repeats_in_a_row: usize,
    /// The next model call is offered no tools (prefetch found the evidence).
    answer_first: bool,
}

impl<'a> Session<'a> {
    pub fn new(
        client: &'a dyn ChatClient,
        model: String,
        protocol: Protocol,
        registry: &'a Registry,
        context: &'a ToolContext,
        config: Config,
        limits: Limits,
    ) -> Session<'a> {
        let system = system_prompt(context);
        Session {
            client,
            model,
            protocol,
            registry,
            context,
            config,
            cancel: CancelToken::new(),
            messages: vec![Message::system(system.clone())],
            system,
            always_allowed: HashSet::new(),
            gathered: Vec::new(),
            question_at: 1,
            skills_loaded: Vec::new(),
            question: String::new(),
            done_calls: Vec::new(),
            findings: Vec::new(),
            intent: Intent::Search,
            facts: None,
            all_tools: limits.all_tools,
            stats: Stats::default(),
            repeats_in_a_row: 0,
            answer_first: false,
            limits,
        }
    }

    /// Forgets the conversation (`/reset`), keeping approvals given.
    pub fn reset(&mut self) {
        self.messages = vec![Message::system(self.system.clone())];
        self.gathered.clear();
        self.skills_loaded.clear();
        self.all_tools = self.limits.all_tools;
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Asks one question (a follow-up in a chat keeps the history).
    pub fn ask(
        &mut self,
        question: &str,
        approver: &mut dyn Approver,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Outcome {
        let started = Instant::now();
        self.question = question.to_string();
        self.stats = Stats::default();
        self.done_calls.clear();
        self.findings.clear();
        self.repeats_in_a_row = 0;
        let plan = self.plan(question, sink);
        self.intent = plan.intent();
        self.facts = None;
        let mut first_message = question.to_string();
        // The shape's own tool found the evidence: the first model call is
        // offered no tools, only the question and that evidence (one call,
        // and a prompt without tool schemas). Tools come back if it does not answer.
        self.answer_first = false;
        if self.limits.prefetch && !self.is_general() {
            if let Some((looked_up, answering)) = self.prefetch(plan, sink) {
                self.answer_first = answering;
                let then = if answering {
                    ANSWER_FROM_RESULTS.to_string()
                } else {
                    format!(
                        "{ANSWER_FROM_RESULTS} Call a tool only if they do not answer the question."
                    )
                };
                first_message = format!("{looked_up}\nQuestion: {question}\n{then}");
            }
        }
        self.question_at = self.messages.len();
        self.messages.push(Message::user(first_message));
        let mut rounds = 0u32;
        let mut tool_calls = 0usize;
        let mut answer = String::new();
        let mut step = Step::Model;
        let mut nudged = false;
        // Why the tool phase ended without an answer, when one last call may still give one.
        let mut last_call: Option<String> = None;
        // The request must fit before anything is sent.
        let first = estimate_tokens(&self.messages) + self.tools_tokens() + 512;
        if first > self.limits.context_tokens as usize {
            step = Step::Finish(FinishReason::Error(SessionError::QuestionTooBig {
                needed: first,
                context: self.limits.context_tokens,
            }));
        }
        let reason = loop {
            step = match step {
                Step::Finish(reason) => break reason,
                Step::Model => {
                    if self.cancel.is_cancelled() {
                        Step::Finish(FinishReason::Cancelled)
                    } else if started.elapsed() > self.limits.wall_time {
                        let why = SessionError::WallTime {
                            seconds: self.limits.wall_time.as_secs(),
                        };
                        last_call = Some(why.to_string());
                        Step::Finish(FinishReason::Error(why))
                    } else {
                        sink(&AgentEvent::ModelStarted { round: rounds + 1 });
                        match self.model_step(rounds + 1, sink) {
                            Ok(reply)
                                if reply.tool_calls.is_empty()
                                    && reply.protocol_errors.is_empty() =>
                            {
                                self.messages.push(self.protocol.assistant_message(&reply));
                                if has_words(&reply.content) {
                                    answer = reply.content.trim().to_string();
                                    Step::Finish(FinishReason::Answered)
                                } else if !nudged {
                                    // Small models sometimes reply with nothing (or bare
                                    // markup such as `<tools></tools>`): ask once more.
                                    nudged = true;
                                    self.messages.push(Message::user(
                                        "error: your reply had no answer. Answer the question from the tool results, \
                                         citing path:line, or call a tool.",
                                    ));
                                    Step::Model
                                } else {
                                    let why = SessionError::NoAnswer;
                                    last_call = Some(why.to_string());
                                    Step::Finish(FinishReason::Error(why))
                                }
                            }
                            Ok(reply) => Step::Tools(Box::new(reply)),
                            Err(_) if self.cancel.is_cancelled() => {
                                Step::Finish(FinishReason::Cancelled)
                            }
                            Err(e) => Step::Finish(FinishReason::Error(e)),
                        }
                    }
                }
                Step::Tools(reply) => {
                    if rounds >= self.limits.rounds {
                        last_call = Some(format!(
                            "the model still asked for tools after {} rounds",
                            self.limits.rounds
                        ));
                        Step::Finish(FinishReason::RoundLimit)
                    } else {
                        rounds += 1;
                        tool_calls += reply.tool_calls.len();
                        match self.tool_step(rounds, &reply, approver, sink) {
                            ToolStepEnd::Denied => Step::Finish(FinishReason::Denied),
                            ToolStepEnd::Cancelled => Step::Finish(FinishReason::Cancelled),
                            ToolStepEnd::Repeating => {
                                last_call = Some(
                                    "the model asked again for calls it had already made".into(),
                                );
                                Step::Finish(FinishReason::Repeated)
                            }
                            ToolStepEnd::Done => {
                                // Tool descriptions take context space too.
                                let used = estimate_tokens(&self.messages) + self.tools_tokens();
                                if used * 10 > self.limits.context_tokens as usize * 8 {
                                    Step::Compact
                                } else {
                                    Step::Model
                                }
                            }
                        }
                    }
                }
                Step::Compact => {
                    self.compact(sink);
                    Step::Model
                }
            };
        };
        // Never end with nothing.
        let mut answered_by = AnsweredBy::Model;
        if answer.is_empty() {
            let from_model = match &last_call {
                Some(why) if !self.cancel.is_cancelled() => self.last_answer(why, rounds + 1, sink),
                _ => None,
            };
            (answer, answered_by) = match from_model {
                Some(text) => (text, AnsweredBy::LastCall),
                None => (self.evidence_list(&reason), AnsweredBy::EvidenceList),
            };
        }
        // What evident adds under the model's words (the facts, notes, lines);
        // a terminal that streamed the words prints only this.
        let mut appended = String::new();
        if answered_by != AnsweredBy::EvidenceList {
            let (prose, added) = self.with_facts(&answer);
            answer = format!("{prose}{added}");
            appended = added;
            let lines = grounding::attach(&answer, &self.gathered);
            if !lines.is_empty() {
                let text = format!("\n\n(lines added by evident: {})", lines.join(", "));
                answer.push_str(&text);
                appended.push_str(&text);
            }
        }
        let index = Index::open(&self.context.root).ok();
        let mut citations = grounding::check(&answer, &self.gathered, index.as_ref());
        for citation in &mut citations {
            citation.added = appended.contains(&citation.text);
        }
        let unsupported = citations
            .iter()
            .filter(|c| c.support != Support::Supported)
            .count();
        sink(&AgentEvent::Finished {
            reason: reason.clone(),
            rounds,
            tool_calls,
            answer: answer.clone(),
            appended,
            answered_by,
            citations: citations.clone(),
            unsupported,
            stats: self.stats.clone(),
        });
        Outcome {
            reason,
            answer,
            answered_by,
            citations,
            rounds,
            tool_calls,
            stats: self.stats.clone(),
        }
    }

    fn model_step(
        &mut self,
        round: u32,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Result<Reply, SessionError> {
        let tools = if std::mem::take(&mut self.answer_first) || self.is_general() {
            Vec::new()
        } else {
            self.offered()
        };
        let request = ChatRequest {
            model: self.model.clone(),
            messages: self.messages.clone(),
            tools,
            protocol: self.protocol,
            temperature: Some(0.0),
            max_tokens: Some(MAX_REPLY_TOKENS),
            ..Default::default()
        };
        let outcome = run_turn(self.client, &request, &self.cancel, &mut |event| {
            if let Event::Content(text) = event {
                sink(&AgentEvent::ModelDelta { text });
            }
        });
        let reply = outcome.map_err(|e| SessionError::Model {
            kind: e.error.kind(),
            message: e.error.to_string(),
        })?;
        self.count(round, &reply.usage, sink);
        if reply.cut_looping {
            sink(&AgentEvent::ModelLooped { round });
        }
        Ok(reply)
    }

    /// Adds a model call's counts to the question's and reports them.
    fn count(&mut self, round: u32, usage: &Usage, sink: &mut dyn FnMut(&AgentEvent)) {
        self.stats.model_calls += 1;
        self.stats.prompt_tokens += usage.prompt_tokens.unwrap_or(0);
        self.stats.completion_tokens += usage.completion_tokens.unwrap_or(0);
        self.stats.prompt_ms += usage.prompt_ms.unwrap_or(0);
        sink(&AgentEvent::ModelFinished {
            round,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            prompt_ms: usage.prompt_ms,
            total_ms: usage.total_ms,
        });
    }
}
