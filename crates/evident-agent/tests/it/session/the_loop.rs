//! The loop.

use super::*;

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
