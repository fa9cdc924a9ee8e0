//! The session: a bounded state machine,
//! `ModelStep → ToolStep → (CompactionStep) → ModelStep … → Finish`.
//! The model only proposes calls; each batch is validated whole, approved once
//! where a tool needs it, run (in parallel), and answered in call order, one
//! result per call, rejected and skipped ones included.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use evident_index::{Config, Evidence, Index};
use evident_llm::{
    run_turn, CancelToken, ChatClient, ChatRequest, Event, Message, Protocol, Reply, Role,
};
use serde::Serialize;
use serde_json::Value;

use crate::budget;
use crate::grounding::{self, Citation, Support};
use crate::registry::Registry;
use crate::tools::{Approval, ToolContext, ToolOutput};

/// Why a session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum FinishReason {
    Answered,
    RoundLimit,
    Denied,
    Cancelled,
    Error(String),
}

impl FinishReason {
    pub fn name(&self) -> &'static str {
        match self {
            FinishReason::Answered => "answered",
            FinishReason::RoundLimit => "round_limit",
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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rounds: 6,
            calls_per_round: 8,
            wall_time: Duration::from_secs(600),
            context_tokens: 8192,
        }
    }
}

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
        answer: String,
        citations: Vec<Citation>,
        unsupported: usize,
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
    pub citations: Vec<Citation>,
    pub rounds: u32,
    pub tool_calls: usize,
}

enum Step {
    Model,
    Tools(Reply),
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
        let system = system_prompt(registry, context);
        Session {
            client,
            model,
            protocol,
            registry,
            context,
            config,
            limits,
            cancel: CancelToken::new(),
            messages: vec![Message::system(system.clone())],
            system,
            always_allowed: HashSet::new(),
            gathered: Vec::new(),
            question_at: 1,
            skills_loaded: Vec::new(),
        }
    }

    /// Forgets the conversation (`/reset`), keeping approvals given.
    pub fn reset(&mut self) {
        self.messages = vec![Message::system(self.system.clone())];
        self.gathered.clear();
        self.skills_loaded.clear();
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
        self.question_at = self.messages.len();
        self.messages.push(Message::user(question));
        let mut rounds = 0u32;
        let mut tool_calls = 0usize;
        let mut answer = String::new();
        let mut step = Step::Model;
        let mut nudged = false;
        // The request must fit before anything is sent.
        let tools_tokens =
            serde_json::to_string(&self.registry.schemas()).map_or(0, |s| s.len()) * 2 / 7;
        let first = estimate_tokens(&self.messages) + tools_tokens + 512;
        if first > self.limits.context_tokens as usize {
            step = Step::Finish(FinishReason::Error(format!(
                "the question, the instructions and the tool descriptions need about {first} tokens, \
                 more than the model's context of {} tokens: ask a shorter question or raise --context-tokens",
                self.limits.context_tokens
            )));
        }
        let reason = loop {
            step = match step {
                Step::Finish(reason) => break reason,
                Step::Model => {
                    if self.cancel.is_cancelled() {
                        Step::Finish(FinishReason::Cancelled)
                    } else if started.elapsed() > self.limits.wall_time {
                        Step::Finish(FinishReason::Error(format!(
                            "the wall-time limit of {} s was reached",
                            self.limits.wall_time.as_secs()
                        )))
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
                                    Step::Finish(FinishReason::Error(
                                        "the model replied twice without an answer or a tool call"
                                            .into(),
                                    ))
                                }
                            }
                            Ok(reply) => Step::Tools(reply),
                            Err(_) if self.cancel.is_cancelled() => {
                                Step::Finish(FinishReason::Cancelled)
                            }
                            Err(e) => Step::Finish(FinishReason::Error(e)),
                        }
                    }
                }
                Step::Tools(reply) => {
                    if rounds >= self.limits.rounds {
                        Step::Finish(FinishReason::RoundLimit)
                    } else {
                        rounds += 1;
                        tool_calls += reply.tool_calls.len();
                        match self.tool_step(rounds, &reply, approver, sink) {
                            ToolStepEnd::Denied => Step::Finish(FinishReason::Denied),
                            ToolStepEnd::Cancelled => Step::Finish(FinishReason::Cancelled),
                            ToolStepEnd::Done => {
                                // Tool descriptions take context space too.
                                let used = estimate_tokens(&self.messages) + tools_tokens;
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
        let citations = if reason == FinishReason::Answered {
            let index = Index::open(&self.context.root).ok();
            grounding::check(&answer, &self.gathered, index.as_ref())
        } else {
            Vec::new()
        };
        let unsupported = citations
            .iter()
            .filter(|c| c.support != Support::Supported)
            .count();
        sink(&AgentEvent::Finished {
            reason: reason.clone(),
            rounds,
            tool_calls,
            answer: answer.clone(),
            citations: citations.clone(),
            unsupported,
        });
        Outcome {
            reason,
            answer,
            citations,
            rounds,
            tool_calls,
        }
    }

    fn model_step(
        &mut self,
        round: u32,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Result<Reply, String> {
        let request = ChatRequest {
            model: self.model.clone(),
            messages: self.messages.clone(),
            tools: self.registry.schemas(),
            protocol: self.protocol,
            temperature: Some(0.0),
            max_tokens: Some(1024),
            ..Default::default()
        };
        let outcome = run_turn(self.client, &request, &self.cancel, &mut |event| {
            if let Event::Content(text) = event {
                sink(&AgentEvent::ModelDelta { text });
            }
        });
        let reply = outcome.map_err(|e| e.error.to_string())?;
        if reply.cut_looping {
            sink(&AgentEvent::ModelLooped { round });
        }
        Ok(reply)
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
        // Validate the whole batch first.
        let mut results: Vec<Option<String>> = vec![None; reply.tool_calls.len()];
        let mut runnable = Vec::new();
        for (i, call) in reply.tool_calls.iter().enumerate() {
            sink(&AgentEvent::ToolProposed {
                round,
                index: i,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            let checked = if i >= self.limits.calls_per_round {
                Err(format!(
                    "skipped: at most {} tool calls per round; ask again for the rest",
                    self.limits.calls_per_round
                ))
            } else {
                self.registry.validate(call, &root, &self.config)
            };
            match checked {
                Ok(valid) => runnable.push((i, valid)),
                Err(error) => {
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
        type Timed = (Result<ToolOutput, String>, f64);
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
                            .unwrap_or_else(|_| (Err("the tool failed unexpectedly".into()), 0.0)),
                    )
                })
                .collect()
        });
        let budget = budget::result_budget(self.limits.context_tokens);
        for (i, (output, ms)) in outputs {
            let name = reply.tool_calls[i].name.clone();
            let (text, event) = match output {
                Ok(output) => {
                    let rendered = render_output(&output);
                    let (text, cut) = budget::cut(&rendered, budget);
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
                        error: Some(error),
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
        ToolStepEnd::Done
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
                Message::user(format!("Question: {}\n\nExploration:\n{transcript}", self.messages[question_at].content)),
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
    Denied,
    Cancelled,
}

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

/// A tool's result as the model reads it: the summary, then each record.
pub fn render_output(output: &ToolOutput) -> String {
    let mut text = format!("{}\n", output.summary);
    for ev in &output.evidence {
        text.push_str(&format!(
            "\n{}:{}-{} {} {}",
            ev.path, ev.start_line, ev.end_line, ev.kind, ev.name
        ));
        if let Some(doc_id) = &ev.doc_id {
            text.push_str(&format!(" [{doc_id}]"));
        }
        text.push('\n');
        for (n, line) in ev.snippet.lines().enumerate() {
            text.push_str(&format!("{:>5}  {line}\n", ev.start_line as usize + n));
        }
    }
    text
}

fn system_prompt(registry: &Registry, context: &ToolContext) -> String {
    let mut prompt = String::from(
        "You answer questions about a code repository that you have not seen: you can read it only through the tools. \
         Call a tool first; never answer from memory and never guess file names or lines. \
         In the answer, cite each fact with the path and lines the tools showed (path:line or path:start-end). \
         Keep the answer short. When you have what you need, answer without calling a tool.\n",
    );
    prompt.push_str(&format!("Tools: {}.\n", registry.names().join(", ")));
    if !context.skills.is_empty() {
        prompt.push_str("Skills (load one with activate_skill when it fits the question):\n");
        for skill in &context.skills {
            prompt.push_str(&format!("- {}: {}\n", skill.name, skill.description));
        }
    }
    prompt
}
