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

use crate::intent::{DecidedBy, Intent};
use crate::prefetch;
use crate::registry::Registry;
pub use crate::render::render_output;
use crate::render::{evidence_digest, render_for_model};
use crate::tools::{Approval, ToolContext, ToolError, ToolOutput};

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

/// The one stream of what happens; the terminal trace and `--json` JSONL are two sinks of it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AgentEvent {
    ModelStarted {
        round: u32,
    },
    ModelDelta {
        text: String,
    },
    ToolProposed {
        round: u32,
        index: usize,
        name: String,
        arguments: Value,
    },
    ToolRejected {
        round: u32,
        index: usize,
        name: String,
        error: String,
    },
    ApprovalRequested {
        round: u32,
        tools: Vec<String>,
    },
    ToolApproved {
        round: u32,
        index: usize,
        name: String,
        how: String,
    },
    ToolDenied {
        round: u32,
        index: usize,
        name: String,
    },
    ToolStarted {
        round: u32,
        index: usize,
        name: String,
    },
    ToolFinished {
        round: u32,
        index: usize,
        name: String,
        summary: String,
        results: usize,
        bytes: usize,
        cut: bool,
        error: Option<String>,
        /// How long the tool itself ran (index open and query).
        ms: f64,
    },
    /// A call identical to an earlier one: not run; the model was pointed
    /// at the earlier result.
    ToolRepeated {
        round: u32,
        index: usize,
        name: String,
        /// The round of the earlier call (0: evident's own lookups before the first).
        first_round: u32,
    },
    /// evident's lookups before the first model call are done (their calls
    /// came as round 0 tool events).
    Prefetched {
        intent: Intent,
        decided_by: DecidedBy,
        /// The linked subject, as a tool is given it.
        subject: Option<String>,
        calls: usize,
    },
    /// A model call ended; the server's counts.
    ModelFinished {
        round: u32,
        prompt_tokens: Option<u64>,
        completion_tokens: Option<u64>,
        prompt_ms: Option<u64>,
        total_ms: Option<u64>,
    },
    /// The tool phase ended without an answer: one last call, tools withdrawn.
    LastCall {
        why: String,
    },
    Compacted {
        tokens_before: usize,
        tokens_after: usize,
        by: String,
    },
    /// The model began writing the same thing over and over: the reply was
    /// stopped there and the repetition cut to one copy.
    ModelLooped {
        round: u32,
    },
    Finished {
        reason: FinishReason,
        rounds: u32,
        tool_calls: usize,
        /// The whole answer, `appended` included.
        answer: String,
        /// What evident appended to the model's words (lines for what it
        /// named without one), or empty.
        appended: String,
        answered_by: AnsweredBy,
        citations: Vec<Citation>,
        unsupported: usize,
        stats: Stats,
    },
}

/// A person's answer to an approval request for one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Deny,
    AllowBatch,
    /// Allow, and do not ask again for these tools in this session.
    AlwaysAllow,
}

/// Asks a person about a batch of calls that need approval.
pub trait Approver {
    fn approve(&mut self, calls: &[(String, Value)]) -> Decision;
}

/// For runs with nobody to ask: every call that needs approval is denied.
pub struct NonInteractive;

impl Approver for NonInteractive {
    fn approve(&mut self, _calls: &[(String, Value)]) -> Decision {
        Decision::Deny
    }
}

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

fn estimate_tokens(messages: &[Message]) -> usize {
    // About 3.5 bytes per token for code and English; erring high is safe.
    messages.iter().map(|m| m.content.len() + 16).sum::<usize>() * 2 / 7
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

    /// The tools offered now: every tool with every option, or the core ones
    /// (plus what the question's shape needs) with only their required
    /// arguments, and `more_tools`. The same question shape gets the same
    /// bytes, so a server's prompt cache holds across questions and sessions.
    fn offered(&self) -> Vec<ToolSchema> {
        if self.all_tools {
            return self.registry.schemas();
        }
        let mut names: Vec<&str> = CORE_TOOLS.to_vec();
        names.extend(self.intent.extra_tools());
        if !self.context.skills.is_empty() {
            names.push("activate_skill");
        }
        let mut tools = self.registry.compact_schemas(&names);
        tools.push(ToolSchema {
            name: MORE_TOOLS.into(),
            description: "List the other tools and options (path and kind filters, git diff, documents) and offer them from then on.".into(),
            parameters: serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false}),
        });
        tools
    }

    fn tools_tokens(&self) -> usize {
        serde_json::to_string(&self.offered()).map_or(0, |s| s.len()) * 2 / 7
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

    /// Runs the question's obvious lookups (see `prefetch`) through the same
    /// validation as the model's calls. Returns their results for the first
    /// prompt and whether the shape's own tool found evidence (see
    /// `Plan::answering`), or `None` when nothing was found.
    fn prefetch(
        &mut self,
        plan: prefetch::Plan,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Option<(String, bool)> {
        let mut answering = false;
        let budget = budget::result_budget(self.limits.context_tokens);
        let mut text = String::new();
        let mut ran = 0;
        for (i, (name, arguments)) in plan.calls.iter().enumerate() {
            let call = ToolCall {
                index: i,
                id: None,
                name: name.to_string(),
                arguments: Value::Object(arguments.clone()),
                arguments_raw: String::new(),
            };
            // Only automatic tools run unasked: a tool the policy wants approved waits for the model.
            let valid = match self
                .registry
                .validate(&call, &self.context.root, &self.config)
            {
                Ok(valid) if valid.approval == Approval::Auto => valid,
                _ => continue,
            };
            let started = Instant::now();
            let output = valid.tool.run(self.context, &valid.arguments);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            let key = call_key(name, &valid.arguments);
            let Ok(output) = output else { continue };
            if i == 0 && plan.answering && self.intent.prints_facts() {
                self.facts = Some((output.summary.clone(), output.evidence.clone()));
            }
            if output.evidence.is_empty() {
                continue;
            }
            let (result, cut) = budget::cut(&render_for_model(&output), budget);
            // Reported only when it found something: a lookup that found
            // nothing is left out of the prompt, and of the trace.
            sink(&AgentEvent::ToolProposed {
                round: 0,
                index: i,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            sink(&AgentEvent::ToolFinished {
                round: 0,
                index: i,
                name: call.name.clone(),
                summary: output.summary.clone(),
                results: output.evidence.len(),
                bytes: result.len(),
                cut,
                error: None,
                ms,
            });
            answering |= i == 0 && plan.answering;
            let written = call_text(name, &valid.arguments);
            text.push_str(&format!("{written}:\n{result}\n"));
            self.findings.push(format!("{written}: {}", output.summary));
            self.done_calls.push((key, 0, output.summary.clone()));
            self.gathered.extend(output.evidence);
            ran += 1;
        }
        self.stats.prefetched = ran;
        sink(&AgentEvent::Prefetched {
            intent: plan.intent(),
            decided_by: plan.decision.by,
            subject: plan.subject().map(|s| s.key.clone()),
            calls: ran,
        });
        (ran > 0).then(|| {
            (
                format!("Results of lookups evident ran for this question:\n\n{text}"),
                answering,
            )
        })
    }

    /// One last model call with tools withdrawn: the question and the
    /// evidence gathered, to be answered from. `None` when it gives no words.
    fn last_answer(
        &mut self,
        why: &str,
        round: u32,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Option<String> {
        sink(&AgentEvent::LastCall { why: why.into() });
        let digest_bytes = (self.limits.context_tokens as usize * 2).clamp(1500, 12_000);
        let digest = evidence_digest(&self.findings, &self.gathered, digest_bytes);
        let evidence = if digest.trim().is_empty() {
            "(the tools found nothing)".to_string()
        } else {
            digest
        };
        // Held to `{"response": ...}` under constrained; plain text otherwise.
        let protocol = if self.protocol == Protocol::Constrained {
            Protocol::Constrained
        } else {
            Protocol::Native
        };
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![
                Message::system(LAST_CALL_INSTRUCTIONS),
                Message::user(format!(
                    "What the tools found:\n{evidence}\nQuestion: {}\nAnswer now from this evidence, citing path:line.",
                    self.question
                )),
            ],
            protocol,
            temperature: Some(0.0),
            max_tokens: Some(MAX_REPLY_TOKENS),
            ..Default::default()
        };
        sink(&AgentEvent::ModelStarted { round });
        let reply = run_turn(self.client, &request, &self.cancel, &mut |_| {}).ok()?;
        self.count(round, &reply.usage, sink);
        let text = reply.content.trim();
        (reply.tool_calls.is_empty() && has_words(text)).then(|| text.to_string())
    }

    /// The answer when no model gave one: what the tools found, each with its lines.
    fn evidence_list(&self, reason: &FinishReason) -> String {
        let why = match reason {
            FinishReason::Error(error) => error.to_string(),
            other => other.name().replace('_', " "),
        };
        if self.findings.is_empty() && self.gathered.is_empty() {
            return format!("No answer ({why}), and no tool found anything.");
        }
        let mut text = format!("No answer from the model ({why}). What the tools found:\n");
        for finding in &self.findings {
            text.push_str(&format!("- {finding}\n"));
        }
        let mut listed: Vec<String> = Vec::new();
        for ev in &self.gathered {
            let line = format!("- {}", crate::render::header(ev));
            if !listed.contains(&line) && listed.len() < 12 {
                listed.push(line);
            }
        }
        text.push_str(&listed.join("\n"));
        text.trim_end().to_string()
    }

    fn tool_step(
        &mut self,
        round: u32,
        reply: &Reply,
        approver: &mut dyn Approver,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> ToolStepEnd {
        self.messages.push(self.protocol.assistant_message(reply));
        // Calls the model wrote but that could not be read get an answer too.
        for error in &reply.protocol_errors {
            self.messages.push(Message::user(format!(
                "error: your tool call could not be read ({}): {}. Write it again as the instructions say.",
                error.message, error.raw
            )));
        }
        let root = self.context.root.clone();
        // Validate the whole batch first; calls made before are answered, not run again.
        let mut results: Vec<Option<String>> = vec![None; reply.tool_calls.len()];
        let mut runnable = Vec::new();
        // Per call that will run: its normalised key and how it is written.
        let mut pending: Vec<Option<(String, String)>> = vec![None; reply.tool_calls.len()];
        for (i, call) in reply.tool_calls.iter().enumerate() {
            sink(&AgentEvent::ToolProposed {
                round,
                index: i,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            if call.name == MORE_TOOLS && i < self.limits.calls_per_round {
                results[i] = Some(self.more_tools());
                continue;
            }
            let checked = if i >= self.limits.calls_per_round {
                Err(format!(
                    "skipped: at most {} tool calls per round; ask again for the rest",
                    self.limits.calls_per_round
                ))
            } else {
                self.registry
                    .validate(call, &root, &self.config)
                    .map_err(|rejection| rejection.to_string())
            };
            match checked {
                Ok(valid) => {
                    let key = call_key(&call.name, &valid.arguments);
                    let earlier =
                        self.done_calls
                            .iter()
                            .find(|(k, _, _)| *k == key)
                            .map(|(_, r, summary)| (*r, summary.clone()))
                            .or_else(|| {
                                pending.iter().flatten().any(|(k, _)| *k == key).then(|| {
                                    (round, "(the same call, earlier in this step)".into())
                                })
                            });
                    if let Some((first_round, summary)) = earlier {
                        self.stats.repeats += 1;
                        self.repeats_in_a_row += 1;
                        sink(&AgentEvent::ToolRepeated {
                            round,
                            index: i,
                            name: call.name.clone(),
                            first_round,
                        });
                        let when = if first_round == 0 {
                            "before your first step".to_string()
                        } else {
                            format!("at step {first_round}")
                        };
                        results[i] = Some(format!(
                            "repeated call: {} was already run {when} and found: {summary}. \
                             Its results are above. Do not call it again: answer the question from them, \
                             citing path:line, or call a different tool.",
                            call_text(&call.name, &valid.arguments)
                        ));
                    } else {
                        self.repeats_in_a_row = 0;
                        pending[i] = Some((key, call_text(&call.name, &valid.arguments)));
                        runnable.push((i, valid));
                    }
                }
                Err(error) => {
                    self.repeats_in_a_row = 0;
                    sink(&AgentEvent::ToolRejected {
                        round,
                        index: i,
                        name: call.name.clone(),
                        error: error.clone(),
                    });
                    results[i] = Some(format!("error: {error}"));
                }
            }
        }
        // One approval for the batch, for the tools that need it.
        let asking: Vec<(String, Value)> = runnable
            .iter()
            .filter(|(_, v)| {
                v.approval == Approval::Ask && !self.always_allowed.contains(v.tool.name())
            })
            .map(|(_, v)| {
                (
                    v.tool.name().to_string(),
                    Value::Object(v.arguments.clone()),
                )
            })
            .collect();
        if !asking.is_empty() {
            sink(&AgentEvent::ApprovalRequested {
                round,
                tools: asking.iter().map(|(n, _)| n.clone()).collect(),
            });
            let decision = approver.approve(&asking);
            let how = match decision {
                Decision::Deny => {
                    for (i, v) in &runnable {
                        if v.approval == Approval::Ask
                            && !self.always_allowed.contains(v.tool.name())
                        {
                            sink(&AgentEvent::ToolDenied {
                                round,
                                index: *i,
                                name: v.tool.name().into(),
                            });
                        }
                    }
                    for (i, call) in reply.tool_calls.iter().enumerate() {
                        if results[i].is_none() {
                            results[i] = Some("error: denied by the user; the session ends".into());
                        }
                        self.messages.push(
                            self.protocol.tool_result_message(
                                call,
                                results[i].as_deref().unwrap_or_default(),
                            ),
                        );
                    }
                    return ToolStepEnd::Denied;
                }
                Decision::AllowBatch => "batch",
                Decision::AlwaysAllow => {
                    for (name, _) in &asking {
                        self.always_allowed.insert(name.clone());
                    }
                    "always"
                }
            };
            for (i, v) in &runnable {
                if v.approval == Approval::Ask {
                    sink(&AgentEvent::ToolApproved {
                        round,
                        index: *i,
                        name: v.tool.name().into(),
                        how: how.into(),
                    });
                }
            }
        }
        if self.cancel.is_cancelled() {
            return ToolStepEnd::Cancelled;
        }
        for (i, v) in &runnable {
            sink(&AgentEvent::ToolStarted {
                round,
                index: *i,
                name: v.tool.name().into(),
            });
        }
        // Read-only tools share nothing mutable: run the batch in parallel.
        let context = self.context;
        type Timed = (Result<ToolOutput, ToolError>, f64);
        let outputs: Vec<(usize, Timed)> = std::thread::scope(|scope| {
            let handles: Vec<_> = runnable
                .iter()
                .map(|(i, v)| {
                    let run = || {
                        let started = Instant::now();
                        let output = v.tool.run(context, &v.arguments);
                        (output, started.elapsed().as_secs_f64() * 1e3)
                    };
                    (*i, scope.spawn(run))
                })
                .collect();
            handles
                .into_iter()
                .map(|(i, h)| {
                    (
                        i,
                        h.join()
                            .unwrap_or_else(|_| (Err(ToolError::Panicked(String::new())), 0.0)),
                    )
                })
                .collect()
        });
        let budget = budget::result_budget(self.limits.context_tokens);
        for (i, (output, ms)) in outputs {
            let name = reply.tool_calls[i].name.clone();
            let (text, event) = match output {
                Ok(output) => {
                    let rendered = render_for_model(&output);
                    let (text, cut) = budget::cut(&rendered, budget);
                    if let Some((key, written)) = pending[i].take() {
                        self.done_calls.push((key, round, output.summary.clone()));
                        self.findings.push(format!("{written}: {}", output.summary));
                    }
                    if name == "activate_skill" {
                        self.skills_loaded.push(text.clone());
                    }
                    let event = AgentEvent::ToolFinished {
                        round,
                        index: i,
                        name,
                        summary: output.summary.clone(),
                        results: output.evidence.len(),
                        bytes: text.len(),
                        cut,
                        error: None,
                        ms,
                    };
                    self.gathered.extend(output.evidence);
                    (text, event)
                }
                Err(error) => {
                    let text = format!("error: {error}");
                    let event = AgentEvent::ToolFinished {
                        round,
                        index: i,
                        name,
                        summary: String::new(),
                        results: 0,
                        bytes: text.len(),
                        cut: false,
                        error: Some(error.to_string()),
                        ms,
                    };
                    (text, event)
                }
            };
            sink(&event);
            results[i] = Some(text);
        }
        for (call, result) in reply.tool_calls.iter().zip(results) {
            let result = result.unwrap_or_else(|| "error: not run".into());
            self.messages
                .push(self.protocol.tool_result_message(call, &result));
        }
        if self.repeats_in_a_row >= MAX_REPEATS_IN_A_ROW {
            return ToolStepEnd::Repeating;
        }
        ToolStepEnd::Done
    }

    /// `more_tools`: every tool with every option is offered from now on;
    /// the result says what they are.
    fn more_tools(&mut self) -> String {
        self.all_tools = true;
        let mut text = String::from("Every tool is offered from now on:\n");
        for tool in self.registry.schemas() {
            let options: Vec<String> = tool.parameters["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            text.push_str(&format!(
                "- {}({}): {}\n",
                tool.name,
                options.join(", "),
                tool.description
            ));
        }
        text
    }

    /// Replaces older exploration by a summary, keeping the question, loaded
    /// skills and every cited piece of evidence verbatim.
    fn compact(&mut self, sink: &mut dyn FnMut(&AgentEvent)) {
        let before = estimate_tokens(&self.messages);
        let question_at = self.question_at;
        let exploration: Vec<Message> = self.messages[question_at + 1..].to_vec();
        if exploration.is_empty() {
            return;
        }
        let transcript: String = exploration
            .iter()
            .map(|m| format!("[{:?}] {}\n", m.role, m.content))
            .collect::<String>();
        let (transcript, _) = budget::cut(
            &transcript,
            (self.limits.context_tokens as usize * 2).max(2000),
        );
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![
                Message::system("Summarise this code exploration in at most 15 lines: what was looked up and what was found, with every path:line that matters. No new claims."),
                Message::user(format!("Question: {}\n\nExploration:\n{transcript}", self.question)),
            ],
            protocol: Protocol::Native,
            temperature: Some(0.0),
            max_tokens: Some(400),
            ..Default::default()
        };
        let (summary, by) = match run_turn(self.client, &request, &self.cancel, &mut |_| {}) {
            Ok(reply) if !reply.content.trim().is_empty() && reply.tool_calls.is_empty() => {
                (reply.content.trim().to_string(), "model")
            }
            _ => (self.fallback_summary(), "fallback"),
        };
        // Evidence the model cited in its own words stays verbatim.
        let said: String = exploration
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let cited: Vec<&Evidence> = self
            .gathered
            .iter()
            .filter(|ev| {
                grounding::citations(&said).iter().any(|(_, path, a, _)| {
                    *path == ev.path && ev.start_line <= *a && *a <= ev.end_line
                })
            })
            .collect();
        let mut note = format!(
            "Summary of the exploration so far (older tool results were compacted):\n{summary}\n"
        );
        if !cited.is_empty() {
            note.push_str("\nEvidence cited so far, verbatim:\n");
            for ev in cited {
                note.push_str(&format!(
                    "{}:{}-{} {} {}\n{}\n",
                    ev.path, ev.start_line, ev.end_line, ev.kind, ev.name, ev.snippet
                ));
            }
        }
        for skill in &self.skills_loaded {
            note.push_str(&format!("\nSkill instructions loaded:\n{skill}\n"));
        }
        self.messages.truncate(question_at + 1);
        self.messages.push(Message::user(note));
        let after = estimate_tokens(&self.messages);
        sink(&AgentEvent::Compacted {
            tokens_before: before,
            tokens_after: after,
            by: by.into(),
        });
    }

    /// Without the model: the evidence headers, one line each.
    fn fallback_summary(&self) -> String {
        let mut lines: Vec<String> = self
            .gathered
            .iter()
            .map(|ev| {
                format!(
                    "- {}:{}-{} {} {}",
                    ev.path, ev.start_line, ev.end_line, ev.kind, ev.name
                )
            })
            .collect();
        lines.dedup();
        if lines.is_empty() {
            "Tools were called; they found nothing.".into()
        } else {
            format!("Tools found:\n{}", lines.join("\n"))
        }
    }
}

enum ToolStepEnd {
    Done,
    /// Calls already made, asked for again too many times in a row.
    Repeating,
    Denied,
    Cancelled,
}

/// A call in normalised form: its name and its validated arguments (keys in
/// order, strings trimmed), so the same call written differently is the same.
fn call_key(name: &str, arguments: &Map<String, Value>) -> String {
    let normalised: Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => (k.clone(), Value::String(s.trim().to_string())),
            other => (k.clone(), other.clone()),
        })
        .collect();
    format!("{name}{}", Value::Object(normalised))
}

/// `find_importers(module="rag_common")`, as the trace writes calls.
fn call_text(name: &str, arguments: &Map<String, Value>) -> String {
    let written: Vec<String> = arguments.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}({})", written.join(", "))
}

/// The system prompt of the last call, which has no tools.
const LAST_CALL_INSTRUCTIONS: &str = "You answer a question about a code repository from the evidence the tools found, and nothing else. \
     Cite each fact as path:line from the evidence. If the evidence does not answer the question, say what it shows and what is missing. Be brief.";

/// Whether a reply says anything once markup tags (and a `<tools>` block,
/// which small models sometimes echo from their prompt) are taken out.
fn has_words(text: &str) -> bool {
    let text = match (text.find("<tools>"), text.rfind("</tools>")) {
        (Some(start), Some(end)) if start < end => {
            format!("{}{}", &text[..start], &text[end + "</tools>".len()..])
        }
        _ => text.to_string(),
    };
    let mut inside_tag = false;
    text.chars().any(|c| match c {
        '<' => {
            inside_tag = true;
            false
        }
        '>' => {
            inside_tag = false;
            false
        }
        c => !inside_tag && c.is_alphanumeric(),
    })
}

/// The system prompt: short (a 1.5B model reads it at every step, on a CPU)
/// and the same bytes for every question in a repository, so that a
/// server's prompt cache holds.
fn system_prompt(context: &ToolContext) -> String {
    let mut prompt = String::from(
        "You answer questions about a code repository, which you can read only through the tools. \
         Never guess file names or line numbers. Give the file and line of each fact, as the tool results show them. \
         When the results answer the question, answer briefly without calling a tool; never repeat a call.\n",
    );
    if !context.skills.is_empty() {
        prompt.push_str("Skills (load one with activate_skill when it fits the question):\n");
        for skill in &context.skills {
            prompt.push_str(&format!("- {}: {}\n", skill.name, skill.description));
        }
    }
    prompt
}
