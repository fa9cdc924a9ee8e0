//! Answers and prompts.

use super::*;

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
