//! Whole sessions against the fake model server (real HTTP, OpenAI SSE and
//! Ollama NDJSON byte for byte) over a real index of a small repository
//! shaped like seed 000's: `rag_common` and the files that import it.

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

#[test]
fn two_steps_which_files_import_rag_common() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&[("find_importers", r#"{"module": "rag_common"}"#)]),
    );
    server.push(CHAT, say("ingest.py:1 and query.py:1 import rag_common."));
    let run = run(dir.path(), &server, "Which files import rag_common?");
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    assert_eq!(
        run.outcome.answer,
        "ingest.py:1 and query.py:1 import rag_common."
    );
    assert_eq!((run.outcome.rounds, run.outcome.tool_calls), (1, 1));
    // The real result went back: both importers, with their lines.
    let results = tool_results(&server, 1);
    assert_eq!(results.len(), 1);
    assert!(
        results[0].1.contains("ingest.py:1-1") && results[0].1.contains("query.py:1-1"),
        "{}",
        results[0].1
    );
    // The tools were offered natively.
    let first = &server.requests_to(CHAT)[0].body;
    assert_eq!(first["tools"].as_array().unwrap().len(), 12);
    assert!(first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["function"]["name"] == "find_importers"));
    // Both citations are backed by the evidence gathered.
    assert!(
        run.outcome
            .citations
            .iter()
            .all(|c| c.support == Support::Supported),
        "{:?}",
        run.outcome.citations
    );
    assert!(matches!(
        run.events.last(),
        Some(AgentEvent::Finished { unsupported: 0, .. })
    ));
}

#[test]
fn three_steps_search_then_impact_then_answer() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&[("search_code", r#"{"query": "collection name"}"#)]),
    );
    server.push(
        CHAT,
        calls(&[("analyze_impact", r#"{"symbol": "get_collection_name"}"#)]),
    );
    server.push(CHAT, say("Changing get_collection_name (rag_common.py:4-5) affects ingest (ingest.py:5) and search (query.py:5)."));
    let run = run(
        dir.path(),
        &server,
        "What breaks if I change get_collection_name?",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    assert_eq!(run.outcome.rounds, 2);
    let search = tool_results(&server, 1);
    assert!(
        search[0]
            .1
            .contains("rag_common.py:4-5 function get_collection_name"),
        "{}",
        search[0].1
    );
    let impact = tool_results(&server, 2);
    assert!(
        impact[1].1.contains("ingest.py:5-5 function ingest")
            && impact[1].1.contains("query.py:5-5 function query.search"),
        "{}",
        impact[1].1
    );
    assert_eq!(run.outcome.citations.len(), 3);
    assert!(
        run.outcome
            .citations
            .iter()
            .all(|c| c.support == Support::Supported),
        "{:?}",
        run.outcome.citations
    );
}

#[test]
fn a_batch_of_three_gets_three_results_in_call_order() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&[
            ("find_symbol", r#"{"name": "ingest"}"#),
            (
                "read_evidence",
                r#"{"path": "rag_common.py", "start_line": 1, "end_line": 2}"#,
            ),
            ("find_symbol", r#"{"name": "search"}"#),
        ]),
    );
    server.push(CHAT, say("Done."));
    let run = run(
        dir.path(),
        &server,
        "Show me ingest, search and the prefix.",
    );
    assert_eq!(run.outcome.tool_calls, 3);
    let results = tool_results(&server, 1);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, vec!["call_0", "call_1", "call_2"]);
    assert!(results[0].1.contains("ingest.py:4-5 function ingest"));
    assert!(results[1].1.contains("PREFIX = \"rag\""));
    assert!(results[2].1.contains("query.py:4-5 function search"));
    let started = run
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolStarted { .. }))
        .count();
    assert_eq!(started, 3);
}

#[test]
fn rejected_calls_get_error_results_and_the_loop_goes_on() {
    // (tool, arguments as the model wrote them, what the refusal must say)
    let cases: [(&str, &str, &str); 8] = [
        (
            "delete_source",
            r#"{"doc_id": "doc-000000000000"}"#,
            "unknown tool \"delete_source\"",
        ),
        (
            "read_evidence",
            r#"{"path": "/etc/passwd", "start_line": 1, "end_line": 5}"#,
            "/etc/passwd is outside the repository",
        ),
        (
            "bash",
            r#"{"command": "rm -rf /"}"#,
            "unknown tool \"bash\"",
        ),
        (
            "read_evidence",
            r#"{"path": "rag_common.py", "path": "/etc/passwd", "start_line": 1, "end_line": 2}"#,
            "duplicate key \"path\"",
        ),
        (
            "search_code",
            r#"{"query": "x", "limit": 99}"#,
            "field \"limit\": 99 is greater than the maximum of 20",
        ),
        (
            "find_symbol",
            r#"{"name": "f", "color": "red"}"#,
            "'color' was unexpected",
        ),
        (
            "read_evidence",
            r#"{"path": "../outside.py", "start_line": "1", "end_line": 2}"#,
            "field \"start_line\": \"1\" is not of type \"integer\"",
        ),
        (
            "read_evidence",
            r#"{"path": ".env", "start_line": 1, "end_line": 2}"#,
            ".env is a secret file",
        ),
    ];
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&cases.map(|(tool, arguments, _)| (tool, arguments))),
    );
    server.push(
        CHAT,
        calls(&[("find_symbol", r#"{"name": "get_collection_name"}"#)]),
    );
    server.push(CHAT, say("It is at rag_common.py:4-5."));
    let run = run(dir.path(), &server, "Where is get_collection_name?");
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let results = tool_results(&server, 1);
    assert_eq!(results.len(), cases.len());
    for ((_, text), (tool, _, want)) in results.iter().zip(cases) {
        assert!(
            text.starts_with("error: ") && text.contains(want),
            "{tool}: want {want:?} in {text}"
        );
    }
    let rejected = run
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolRejected { .. }))
        .count();
    assert_eq!(rejected, 8);
    // No handler ran for any of them: nothing was gathered from /etc/passwd.
    assert!(!run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolStarted { round: 1, .. })));
}

struct Scripted(Vec<Decision>, usize);

impl Approver for Scripted {
    fn approve(&mut self, _calls: &[(String, Value)]) -> Decision {
        self.1 += 1;
        self.0.remove(0)
    }
}

#[test]
fn approvals_deny_ends_the_run_and_always_is_remembered() {
    let dir = repo();
    let server = FakeServer::start();
    let ask = vec!["read_evidence".to_string()];
    // Non-interactive: a tool that needs approval is denied, and the run ends.
    server.push(
        CHAT,
        calls(&[(
            "read_evidence",
            r#"{"path": "rag_common.py", "start_line": 1, "end_line": 1}"#,
        )]),
    );
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        loop_only(),
        &ask,
        &mut NonInteractive,
        "q",
    );
    assert_eq!(run.outcome.reason, FinishReason::Denied);
    assert!(run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolDenied { .. })));
    assert!(!run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolStarted { .. })));

    // "Always allow" once: the second round's call is not asked about.
    server.push(
        CHAT,
        calls(&[(
            "read_evidence",
            r#"{"path": "rag_common.py", "start_line": 1, "end_line": 1}"#,
        )]),
    );
    server.push(
        CHAT,
        calls(&[
            (
                "read_evidence",
                r#"{"path": "ingest.py", "start_line": 1, "end_line": 1}"#,
            ),
            ("find_symbol", r#"{"name": "ingest"}"#),
        ]),
    );
    server.push(CHAT, say("ok"));
    let mut approver = Scripted(vec![Decision::AlwaysAllow], 0);
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        loop_only(),
        &ask,
        &mut approver,
        "q",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    assert_eq!(approver.1, 1, "asked once");
    // An unknown tool in the policy is a clear error.
    let err = Registry::read_only(&["write_file".to_string()])
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("\"write_file\", which is not a tool"),
        "{err}"
    );
}

#[test]
fn the_round_limit_ends_a_model_that_never_answers() {
    let dir = repo();
    let server = FakeServer::start();
    for name in ["ingest", "search", "helper"] {
        let arguments = format!(r#"{{"name": "{name}"}}"#);
        server.push(CHAT, calls(&[("find_symbol", arguments.as_str())]));
    }
    // The last call, tools withdrawn.
    server.push(CHAT, say("ingest.py:4-5 defines ingest."));
    let limits = Limits {
        rounds: 2,
        ..loop_only()
    };
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        limits,
        &[],
        &mut NonInteractive,
        "loop",
    );
    assert_eq!(run.outcome.reason, FinishReason::RoundLimit);
    assert_eq!(run.outcome.rounds, 2);
    // One last call, tools withdrawn, answered from the evidence.
    let requests = server.requests_to(CHAT);
    assert_eq!(requests.len(), 4);
    assert!(requests[3]
        .body
        .get("tools")
        .is_none_or(|t| t.as_array().is_none_or(|a| a.is_empty())));
    assert_eq!(run.outcome.answer, "ingest.py:4-5 defines ingest.");
    assert_eq!(run.outcome.answered_by, evident_agent::AnsweredBy::LastCall);
    assert!(run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::LastCall { why } if why.contains("after 2 rounds"))));
}

#[test]
fn cancelling_stops_a_stalled_model_at_once() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, Script::Silent(Duration::from_secs(30)));
    let client = client(&server);
    let registry = Registry::read_only(&[]).unwrap();
    let context = ToolContext::plain(dir.path().to_path_buf());
    let mut session = Session::new(
        &client,
        "fake".into(),
        Protocol::Auto,
        &registry,
        &context,
        Config::default(),
        loop_only(),
    );
    let cancel = session.cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cancel.cancel();
    });
    let started = std::time::Instant::now();
    let outcome = session.ask("q", &mut NonInteractive, &mut |_| {});
    assert_eq!(outcome.reason, FinishReason::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn oversized_results_are_cut_with_the_marker() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&[(
            "read_evidence",
            r#"{"path": "big.py", "start_line": 1, "end_line": 400}"#,
        )]),
    );
    server.push(CHAT, say("big.py:1 starts the padding."));
    let limits = Limits {
        context_tokens: 4096,
        ..loop_only()
    };
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        limits,
        &[],
        &mut NonInteractive,
        "What is in big.py?",
    );
    let result = &tool_results(&server, 1)[0].1;
    assert!(result.len() <= 3_000, "{}", result.len());
    assert!(
        result.contains("value_1 = 1") && result.contains("value_400 = 400"),
        "head and tail kept"
    );
    assert!(
        result.contains("[... omitted ")
            && result.contains("narrow the query or read_evidence a smaller range ...]")
    );
    assert!(run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolFinished { cut: true, .. })));
}

#[test]
fn a_question_too_big_for_the_context_is_refused_before_sending() {
    let dir = repo();
    let server = FakeServer::start();
    let limits = Limits {
        context_tokens: 1024,
        ..loop_only()
    };
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        limits,
        &[],
        &mut NonInteractive,
        &"why? ".repeat(2000),
    );
    let FinishReason::Error(error) = &run.outcome.reason else {
        panic!("{:?}", run.outcome.reason)
    };
    let message = error.to_string();
    assert!(
        message.contains("more than the model's context of 1024 tokens"),
        "{message}"
    );
    assert!(server.requests().is_empty(), "nothing was sent");
}

#[test]
fn compaction_keeps_the_question_and_cited_evidence_then_answers() {
    let dir = repo();
    let server = FakeServer::start();
    // Round 1 reads a lot; the model cites one line in passing.
    let mut first = calls(&[
        (
            "read_evidence",
            r#"{"path": "big.py", "start_line": 1, "end_line": 300}"#,
        ),
        (
            "read_evidence",
            r#"{"path": "big.py", "start_line": 301, "end_line": 600}"#,
        ),
        (
            "read_evidence",
            r#"{"path": "big.py", "start_line": 601, "end_line": 900}"#,
        ),
    ]);
    if let Script::Stream { pieces, .. } = &mut first {
        let text = String::from_utf8(pieces[0].clone()).unwrap().replacen(
            "\"role\":\"assistant\"",
            "\"role\":\"assistant\",\"content\":\"Looking at rag_common.py:4 first.\"",
            1,
        );
        pieces[0] = text.into_bytes();
    }
    server.push(
        CHAT,
        calls(&[(
            "read_evidence",
            r#"{"path": "rag_common.py", "start_line": 1, "end_line": 5}"#,
        )]),
    );
    server.push(CHAT, first);
    server.push(
        CHAT,
        say("The exploration found the prefix and the padding."),
    );
    server.push(CHAT, say("rag_common.py:4-5 defines it."));
    let limits = Limits {
        context_tokens: 2600,
        ..loop_only()
    };
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        limits,
        &[],
        &mut NonInteractive,
        "Where is the collection name built?",
    );
    assert_eq!(
        run.outcome.reason,
        FinishReason::Answered,
        "{:?}",
        run.events.last()
    );
    let compacted = run.events.iter().find_map(|e| match e {
        AgentEvent::Compacted {
            tokens_before,
            tokens_after,
            by,
        } => Some((*tokens_before, *tokens_after, by.clone())),
        _ => None,
    });
    let (before, after, by) =
        compacted.unwrap_or_else(|| panic!("not compacted: {:#?}", run.events));
    assert!(after < before, "{before} -> {after}");
    assert_eq!(by, "model");
    // The request after compaction: the question verbatim, the summary, the cited evidence verbatim.
    let requests = server.requests_to(CHAT);
    let last = &requests.last().unwrap().body["messages"];
    let texts: Vec<&str> = last
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(texts[1], "Where is the collection name built?");
    let note = texts[2];
    assert!(
        note.contains("The exploration found the prefix and the padding."),
        "{note}"
    );
    assert!(
        note.contains("rag_common.py:1-5") && note.contains("def get_collection_name(kind):"),
        "{note}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("value_250 = 250")),
        "old results are gone"
    );
}

#[test]
fn skills_are_listed_then_loaded_on_request() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, calls(&[("activate_skill", r#"{"name": "release"}"#)]));
    server.push(CHAT, say("Tag it."));
    let run = run(dir.path(), &server, "How do I cut a release?");
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let system = server.requests_to(CHAT)[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("- release: How this team cuts a release"),
        "{system}"
    );
    assert!(
        !system.contains("changelog script"),
        "only the description is in the prompt"
    );
    assert!(tool_results(&server, 1)[0]
        .1
        .contains("Tag with vX.Y.Z, then run the changelog script."));
    // A broken SKILL.md is reported, not fatal.
    std::fs::create_dir_all(dir.path().join(".evident/skills/broken")).unwrap();
    std::fs::write(
        dir.path().join(".evident/skills/broken/SKILL.md"),
        "no front matter",
    )
    .unwrap();
    let found = discover_skills(dir.path(), None);
    assert_eq!(found.skills.len(), 1);
    assert!(
        found.problems[0].contains("broken/SKILL.md: no front matter"),
        "{:?}",
        found.problems
    );
}

#[test]
fn a_looping_answer_is_stopped_and_kept_once() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&[("find_importers", r#"{"module": "rag_common"}"#)]),
    );
    let looping = format!(
        "ingest.py:1 and query.py:1 import rag_common. {}",
        "Both files import it at the top. ".repeat(200)
    );
    server.push(CHAT, say(&looping));
    let run = run(dir.path(), &server, "Which files import rag_common?");
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    assert!(
        run.outcome
            .answer
            .starts_with("ingest.py:1 and query.py:1 import rag_common."),
        "{}",
        run.outcome.answer
    );
    assert_eq!(
        run.outcome.answer.matches("Both files import it").count(),
        1
    );
    assert!(run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ModelLooped { round: 2 })));
}

/// What Qwen2.5-Coder-1.5B did on llama-server: a guessed path filter, and an
/// empty `<tools></tools>` wrapper beside its calls, which, kept in the
/// history, it copied instead of answering.
#[test]
fn a_guessed_path_finds_the_definition_elsewhere_and_empty_markup_is_not_echoed() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        Script::sse(&[
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "<tools>\n\n</tools>"}, "finish_reason": null}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_0", "type": "function",
                "function": {"name": "find_symbol", "arguments": r#"{"name": "get_collection_name", "path": "src/main/java/RagCommon.java"}"#}}]}, "finish_reason": null}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ]),
    );
    server.push(CHAT, say("It is defined in rag_common.py:4-5."));
    let run = run(dir.path(), &server, "Where is get_collection_name defined?");
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let results = tool_results(&server, 1);
    assert!(
        results[0].1.starts_with(
            "note: no definitions under src/main/java/RagCommon.java, so the path filter was dropped. \
             1 definition of get_collection_name: rag_common.get_collection_name at rag_common.py:4"
        ) && results[0].1.contains("rag_common.py:4-5"),
        "{}",
        results[0].1
    );
    let history = &server.requests_to(CHAT)[1].body["messages"];
    let assistant = history
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(assistant["content"], "", "{assistant}");
    assert!(run
        .outcome
        .citations
        .iter()
        .all(|c| c.support == Support::Supported));
}

#[test]
fn ungrounded_citations_are_flagged() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, calls(&[("find_symbol", r#"{"name": "ingest"}"#)]));
    server.push(
        CHAT,
        say("See ingest.py:4-5, query.py:4 and nowhere.py:10."),
    );
    let run = run(dir.path(), &server, "q");
    let support: Vec<(&str, &Support)> = run
        .outcome
        .citations
        .iter()
        .map(|c| (c.text.as_str(), &c.support))
        .collect();
    assert_eq!(
        support,
        vec![
            ("ingest.py:4-5", &Support::Supported),
            ("query.py:4", &Support::Unseen),
            ("nowhere.py:10", &Support::Missing)
        ]
    );
    assert!(matches!(
        run.events.last(),
        Some(AgentEvent::Finished { unsupported: 2, .. })
    ));
}

#[test]
fn ollama_two_steps_over_ndjson() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        "/api/show",
        Script::json(200, json!({"model_info": {"qwen2.context_length": 32768}})),
    );
    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"model": "fake", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "find_importers", "arguments": {"module": "rag_common"}}}]}, "done": false}),
            json!({"model": "fake", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"}),
        ]),
    );
    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"model": "fake", "message": {"role": "assistant", "content": "ingest.py:1 and query.py:1."}, "done": false}),
            json!({"model": "fake", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"}),
        ]),
    );
    let client = OllamaClient::new(OllamaOptions {
        host: Some(server.base.clone()),
        ..Default::default()
    });
    let run = run_with(
        dir.path(),
        &client,
        Protocol::Auto,
        loop_only(),
        &[],
        &mut NonInteractive,
        "Which files import rag_common?",
    );
    assert_eq!(
        run.outcome.reason,
        FinishReason::Answered,
        "{:?}",
        run.events.last()
    );
    assert_eq!(run.outcome.answer, "ingest.py:1 and query.py:1.");
    let second = &server.requests_to("/api/chat")[1].body["messages"];
    let result = second.as_array().unwrap().last().unwrap();
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("ingest.py:1-1"),
        "{result}"
    );
}

#[test]
fn the_registry_holds_exactly_the_read_only_tools() {
    let registry = Registry::read_only(&[]).unwrap();
    assert_eq!(
        registry.names(),
        vec![
            "search_code",
            "find_symbol",
            "read_evidence",
            "find_importers",
            "get_callers",
            "get_callees",
            "find_references",
            "analyze_impact",
            "read_git_diff",
            "list_sources",
            "read_source",
            "activate_skill",
        ]
    );
    // Every schema is a closed object: no argument the schema does not name.
    for schema in registry.schemas() {
        assert_eq!(schema.parameters["type"], "object", "{}", schema.name);
        assert_eq!(
            schema.parameters["additionalProperties"], false,
            "{}",
            schema.name
        );
    }
    assert!(registry
        .approvals()
        .values()
        .all(|a| *a == evident_agent::Approval::Auto));
}

#[test]
fn tool_descriptions_stay_small() {
    // Every byte here is read by the model at every step: on a 2-core CPU a
    // 1.5B model reads about 50 tokens per second.
    let registry = Registry::read_only(&[]).unwrap();
    let bytes = serde_json::to_string(&registry.schemas()).unwrap().len();
    // (With every tool offered; a question is offered the core tools and
    // those its intent needs, in compact form.)
    assert!(bytes < 4000, "the tool schemas take {bytes} bytes");
}

#[test]
fn compaction_falls_back_to_a_list_when_the_summary_fails() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&[("find_symbol", r#"{"name": "get_collection_name"}"#)]),
    );
    server.push(
        CHAT,
        calls(&[
            (
                "read_evidence",
                r#"{"path": "big.py", "start_line": 1, "end_line": 300}"#,
            ),
            (
                "read_evidence",
                r#"{"path": "big.py", "start_line": 301, "end_line": 600}"#,
            ),
            (
                "read_evidence",
                r#"{"path": "big.py", "start_line": 601, "end_line": 900}"#,
            ),
        ]),
    );
    // The summary request fails (a 400 is not retried); the session goes on.
    server.push(
        CHAT,
        Script::Answer {
            status: 400,
            body: "{\"error\": \"bad request\"}".into(),
        },
    );
    server.push(CHAT, say("rag_common.py:4-5."));
    let limits = Limits {
        context_tokens: 2600,
        ..loop_only()
    };
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Auto,
        limits,
        &[],
        &mut NonInteractive,
        "Where?",
    );
    assert_eq!(
        run.outcome.reason,
        FinishReason::Answered,
        "{:?}",
        run.events.last()
    );
    assert!(run
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::Compacted { by, .. } if by == "fallback")));
    let requests = server.requests_to(CHAT);
    let note = requests.last().unwrap().body["messages"][2]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        note.contains("Tools found:") && note.contains("- rag_common.py:4-5 function"),
        "{note}"
    );
    assert!(note.contains("- big.py:1-300"), "{note}");
}

#[test]
fn an_empty_reply_is_asked_again_once_then_an_error() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, say("<tools>\n{\"type\": \"function\"}\n</tools>"));
    server.push(CHAT, say("ingest.py:1 imports it."));
    let first = run(dir.path(), &server, "Who imports rag_common?");
    assert_eq!(first.outcome.reason, FinishReason::Answered);
    assert_eq!(first.outcome.answer, "ingest.py:1 imports it.");
    let second = &server.requests_to(CHAT)[1].body["messages"];
    assert!(second.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .starts_with("error: your reply had no answer"));

    server.push(CHAT, say(""));
    server.push(CHAT, say("  "));
    let second_run = run(dir.path(), &server, "Who imports rag_common?");
    assert_eq!(
        second_run.outcome.reason,
        FinishReason::Error(SessionError::NoAnswer)
    );
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

#[test]
fn the_obvious_lookup_runs_first_and_one_model_call_answers() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, say("ingest.py:1 and query.py:1 import rag_common."));
    let run = run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "Which files import rag_common?",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let requests = server.requests_to(CHAT);
    assert_eq!(requests.len(), 1, "one model call");
    let first = &requests[0].body;
    let question = first["messages"][1]["content"].as_str().unwrap();
    assert!(
        question.contains("find_importers(module=\"rag_common\"):\n2 import sites of rag_common: ingest.py:1, query.py:1")
            && question.ends_with("Question: Which files import rag_common?\nAnswer the question in a sentence or two from these results. Give the file and line of each thing you name, as the results show them."),
        "{question}"
    );
    // The shape's own tool found the evidence: that call offers no tools.
    assert!(
        first
            .get("tools")
            .is_none_or(|t| t.as_array().is_none_or(|a| a.is_empty())),
        "{first}"
    );
    let (stats, _) = finished(&run);
    assert_eq!(
        (stats.prefetched, stats.model_calls, stats.repeats),
        (1, 1, 0)
    );
    assert!(run
        .outcome
        .citations
        .iter()
        .all(|c| c.support == Support::Supported));
}

#[test]
fn when_the_tool_free_answer_is_empty_the_tools_come_back() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, say(""));
    server.push(CHAT, say("ingest.py:1 and query.py:1."));
    let run = run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "Which files import rag_common?",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let requests = server.requests_to(CHAT);
    assert_eq!(requests[1].body["tools"].as_array().unwrap().len(), 8);
}

#[test]
fn a_search_question_gets_hits_and_the_core_tools_in_compact_form() {
    let dir = repo();
    let server = FakeServer::start();
    // The question names nothing the index holds: the model gives its intent.
    server.push(CHAT, intent("search", 0));
    server.push(CHAT, say("rag_common.py:4-5 builds it."));
    let run = run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "How is the collection name built?",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let first = &server.requests_to(CHAT)[1].body;
    let question = first["messages"][1]["content"].as_str().unwrap();
    assert!(
        question.contains("search_code(")
            && question.contains("rag_common.py:4-5 function get_collection_name (in rag_common)"),
        "{question}"
    );
    assert!(
        question.ends_with("Call a tool only if they do not answer the question."),
        "{question}"
    );
    // The core tools with only their required arguments, and more_tools.
    let tools = first["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "search_code",
            "find_symbol",
            "read_evidence",
            "find_importers",
            "get_callers",
            "analyze_impact",
            "activate_skill",
            "more_tools"
        ]
    );
    let find_symbol = &tools[1]["function"]["parameters"]["properties"];
    assert_eq!(
        find_symbol.as_object().unwrap().keys().collect::<Vec<_>>(),
        vec!["name"]
    );
}

#[test]
fn the_prompt_prefix_is_the_same_bytes_for_every_question() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, intent("search", 0));
    server.push(CHAT, say("rag_common.py:4."));
    server.push(CHAT, intent("search", 1));
    server.push(CHAT, say("query.py:4."));
    run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "How is the collection name built?",
    );
    run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "Explain the search in query.py",
    );
    let requests = server.requests_to(CHAT);
    // The intent calls share their prefix too: the same system message.
    let (x, y) = (&requests[0].body, &requests[2].body);
    assert_eq!(x["messages"][0], y["messages"][0], "intent prompt");
    assert!(x["messages"][1]["content"].as_str().unwrap().len() < 400);
    let (a, b) = (&requests[1].body, &requests[3].body);
    assert_eq!(a["messages"][0], b["messages"][0], "system prompt");
    assert_eq!(a["tools"], b["tools"], "tools");
    assert!(!a["tools"].as_array().unwrap().is_empty());
}

/// "Which files import rag_common?" under constrained: Qwen2.5-Coder-1.5B
/// called find_importers six times with the same arguments and ended with
/// nothing.
#[test]
fn a_repeated_call_is_not_run_and_two_in_a_row_end_in_a_last_answer() {
    let dir = repo();
    let server = FakeServer::start();
    let call =
        r#"{"tool_call": {"name": "find_importers", "arguments": {"module": "rag_common"}}}"#;
    server.push(CHAT, say(call));
    server.push(CHAT, say(call));
    server.push(CHAT, say(call));
    server.push(
        CHAT,
        say(r#"{"response": "ingest.py and query.py import rag_common."}"#),
    );
    let limits = Limits {
        prefetch: false,
        ..Limits::default()
    };
    let run = run_with(
        dir.path(),
        &client(&server),
        Protocol::Constrained,
        limits,
        &[],
        &mut NonInteractive,
        "Which files import rag_common?",
    );
    assert_eq!(run.outcome.reason, FinishReason::Repeated);
    assert_eq!(run.outcome.answered_by, evident_agent::AnsweredBy::LastCall);
    let requests = server.requests_to(CHAT);
    assert_eq!(requests.len(), 4);
    // The repeat was answered with a pointer, not run again.
    let third = requests[2].body["messages"].as_array().unwrap();
    let pointer = third.last().unwrap()["content"].as_str().unwrap();
    assert!(
        pointer.contains("repeated call: find_importers(module=\"rag_common\") was already run at step 1 and found: 2 import sites"),
        "{pointer}"
    );
    let repeated = run
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolRepeated { first_round: 1, .. }))
        .count();
    assert_eq!(repeated, 2);
    let ran = run
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolFinished { .. }))
        .count();
    assert_eq!(ran, 1, "run once");
    // The last call: no tools, the evidence, a schema that only allows an answer.
    let last = &requests[3].body;
    let schema = last["response_format"].to_string();
    assert!(!schema.contains("tool_call"), "{schema}");
    assert!(last["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("ingest.py:1-1 import"));
    // The answer named files without lines; evident added them.
    assert_eq!(
        run.outcome.answer,
        "ingest.py and query.py import rag_common.\n\n(lines added by evident: ingest.py:1, query.py:1)"
    );
    assert!(run
        .outcome
        .citations
        .iter()
        .all(|c| c.added && c.support == Support::Supported));
    let (stats, appended) = finished(&run);
    assert_eq!(stats.repeats, 2);
    assert!(appended.starts_with("\n\n(lines added by evident"));
}

/// "Which functions call get_collection_name?": the model made up a path.
#[test]
fn an_invented_path_or_kind_or_qualifier_is_dropped_with_a_note() {
    // (tool, arguments a small model invents, how the result must begin)
    let cases: [(&str, &str, &str); 4] = [
        (
            "get_callers",
            r#"{"symbol": "get_collection_name", "path": "src/main/java/com/example/MyClass.java"}"#,
            "note: src/main/java/com/example/MyClass.java holds no definition of get_collection_name, so the path filter was dropped. \
             2 call sites of get_collection_name: ingest.ingest at ingest.py:5, query.search at query.py:5",
        ),
        (
            "analyze_impact",
            r#"{"symbol": "RagCommon.get_collection_name", "path": "lib"}"#,
            "note: no definition is named RagCommon.get_collection_name; using rag_common.get_collection_name (rag_common.py:4), \
             the one definition named get_collection_name, without the path filter. \
             2 affected definitions of get_collection_name in 2 files:",
        ),
        (
            "find_symbol",
            r#"{"name": "ingest", "kind": "class"}"#,
            "note: no class is named ingest, so the kind was dropped. 1 definition of ingest: ingest.ingest at ingest.py:4",
        ),
        (
            "search_code",
            r#"{"query": "collection name", "kind": "class"}"#,
            "note: nothing of kind class matched, so the kind was dropped. ",
        ),
    ];
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        calls(&cases.map(|(tool, arguments, _)| (tool, arguments))),
    );
    server.push(
        CHAT,
        say("ingest (ingest.py:5) and search (query.py:5) call it."),
    );
    let first = run(
        dir.path(),
        &server,
        "Which functions call get_collection_name?",
    );
    assert_eq!(first.outcome.reason, FinishReason::Answered);
    let results = tool_results(&server, 1);
    assert_eq!(results.len(), cases.len());
    for ((_, result), (tool, _, expected)) in results.iter().zip(cases) {
        assert!(
            result.starts_with(expected),
            "{tool}: {result}\nexpected: {expected}"
        );
    }
    // The security checks do not bend: a path out of the repository is still refused.
    server.push(
        CHAT,
        calls(&[(
            "get_callers",
            r#"{"symbol": "get_collection_name", "path": "../outside"}"#,
        )]),
    );
    server.push(CHAT, say("nothing."));
    let refused = run(dir.path(), &server, "q");
    assert!(refused
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolRejected { .. })));
}

#[test]
fn a_model_that_never_answers_still_gets_an_answer_listing_the_evidence() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, say(""));
    server.push(CHAT, say("<tools></tools>"));
    // The last call fails too (a 400 is not retried).
    server.push(
        CHAT,
        Script::Answer {
            status: 400,
            body: "{\"error\": \"bad request\"}".into(),
        },
    );
    let run = run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "Which files import rag_common?",
    );
    assert_eq!(
        run.outcome.reason,
        FinishReason::Error(SessionError::NoAnswer)
    );
    assert_eq!(
        run.outcome.answered_by,
        evident_agent::AnsweredBy::EvidenceList
    );
    assert!(
        run.outcome.answer.starts_with("No answer from the model (the model replied twice without an answer or a tool call). What the tools found:\n\
         - find_importers(module=\"rag_common\"): 2 import sites of rag_common: ingest.py:1, query.py:1"),
        "{}",
        run.outcome.answer
    );
    assert!(
        run.outcome
            .citations
            .iter()
            .all(|c| c.support == Support::Supported)
            && !run.outcome.citations.is_empty()
    );
}

#[test]
fn an_answer_without_lines_gets_them_from_its_evidence() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, intent("search", 0));
    server.push(
        CHAT,
        say("It is get_collection_name in rag_common.py; ingest calls it."),
    );
    let run = run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "How is the collection name built?",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    assert!(
        run.outcome
            .answer
            .ends_with("\n\n(lines added by evident: rag_common.py:4-5)"),
        "{}",
        run.outcome.answer
    );
    let added: Vec<&evident_agent::Citation> =
        run.outcome.citations.iter().filter(|c| c.added).collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].support, Support::Supported);
}

#[test]
fn more_tools_offers_every_tool_from_then_on() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, intent("search", 0));
    server.push(CHAT, calls(&[("more_tools", "{}")]));
    server.push(CHAT, say("Nothing changed."));
    let run = run_default(
        dir.path(),
        &server,
        Protocol::Auto,
        "Summarise the project layout",
    );
    assert_eq!(run.outcome.reason, FinishReason::Answered);
    let requests = server.requests_to(CHAT);
    assert_eq!(requests[1].body["tools"].as_array().unwrap().len(), 8);
    assert_eq!(requests[2].body["tools"].as_array().unwrap().len(), 12);
    let listing = &tool_results(&server, 2)[0].1;
    assert!(
        listing.contains("- read_git_diff(base, path):")
            && listing.contains("find_symbol(name, kind, path)"),
        "{listing}"
    );
}
