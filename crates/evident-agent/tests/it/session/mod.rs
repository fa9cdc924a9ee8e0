//! Whole sessions against the fake model server (real HTTP, OpenAI SSE and
//! Ollama NDJSON byte for byte) over a real index of a small repository
//! shaped like seed 000's: `rag_common` and the files that import it.

mod answers_and_prompts;
mod the_loop;

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::client;
use evident_agent::{
    discover_skills, AgentEvent, Approver, Decision, FinishReason, Limits, NonInteractive,
    Registry, Session, SessionError, Support, ToolContext,
};
use evident_index::Config;
use evident_llm::{ChatClient, OllamaClient, OllamaOptions, Protocol};
use evident_testkit::script::{calls, intent, say};
use evident_testkit::{FakeServer, Script};
use serde_json::{json, Value};

const CHAT: &str = "/v1/chat/completions";

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    evident_testkit::fs::write_all(root, evident_testkit::fs::RAG_FILES);
    write(
        "big.py",
        &(1..=3000)
            .map(|i| format!("value_{i} = {i}  # padding line\n"))
            .collect::<String>(),
    );
    write(".evident/skills/release/SKILL.md", "---\nname: release\ndescription: How this team cuts a release\n---\nTag with vX.Y.Z, then run the changelog script.\n");
    evident_index::index_repo(root, &Default::default()).unwrap();
    dir
}

struct Run {
    outcome: evident_agent::Outcome,
    events: Vec<AgentEvent>,
}

fn run_with(
    root: &Path,
    client: &dyn ChatClient,
    protocol: Protocol,
    limits: Limits,
    ask: &[String],
    approver: &mut dyn Approver,
    question: &str,
) -> Run {
    let registry = Registry::read_only(ask).unwrap();
    let skills = discover_skills(root, None).skills;
    let context = ToolContext {
        skills,
        ..ToolContext::plain(root.to_path_buf())
    };
    let mut session = Session::new(
        client,
        "fake".into(),
        protocol,
        &registry,
        &context,
        Config::load(root).unwrap(),
        limits,
    );
    let mut events = Vec::new();
    let outcome = session.ask(question, approver, &mut |e| events.push(e.clone()));
    Run { outcome, events }
}

/// The loop alone, as the tests before prefetching were written: no lookups
/// before the first model call, every tool offered whole.
fn loop_only() -> Limits {
    Limits {
        prefetch: false,
        all_tools: true,
        ..Limits::default()
    }
}

fn run(root: &Path, server: &FakeServer, question: &str) -> Run {
    run_with(
        root,
        &client(server),
        Protocol::Auto,
        loop_only(),
        &[],
        &mut NonInteractive,
        question,
    )
}

/// The tool results the model was sent in request `n` (role `tool`), in order.
fn tool_results(server: &FakeServer, n: usize) -> Vec<(String, String)> {
    server.requests_to(CHAT)[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

struct Scripted(Vec<Decision>, usize);

impl Approver for Scripted {
    fn approve(&mut self, _calls: &[(String, Value)]) -> Decision {
        self.1 += 1;
        self.0.remove(0)
    }
}

// What small models do, scripted: each gets the outcome issue 15 asks for.

/// The session as `evident ask` runs it: lookups first, the core tools.
fn run_default(root: &Path, server: &FakeServer, protocol: Protocol, question: &str) -> Run {
    run_with(
        root,
        &client(server),
        protocol,
        Limits::default(),
        &[],
        &mut NonInteractive,
        question,
    )
}

fn finished(run: &Run) -> (&evident_agent::Stats, &str) {
    match run.events.last() {
        Some(AgentEvent::Finished {
            stats, appended, ..
        }) => (stats, appended.as_str()),
        other => panic!("last event {other:?}"),
    }
}
