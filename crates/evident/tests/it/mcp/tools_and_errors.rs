//! Tools and errors.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn the_tool_list_is_the_agents_registry() {
    let repo = fixture();
    let (session, _) = connect(repo.path(), &[]).await;
    let listed = session.list_all_tools().await.unwrap();
    // Every tool the agent has, less the agent-only ones, with the same
    // name, description and schema; nothing else.
    let agent = Registry::read_only(&[]).unwrap();
    let agent_only: Vec<&str> = builtin_tools()
        .iter()
        .filter(|t| t.agent_only())
        .map(|t| t.name())
        .collect();
    assert_eq!(agent_only, ["activate_skill"]);
    let expected: Vec<(String, String, Value)> = agent
        .schemas()
        .into_iter()
        .filter(|s| !agent_only.contains(&s.name.as_str()))
        .map(|s| (s.name, s.description, s.parameters))
        .collect();
    let served: Vec<(String, String, Value)> = listed
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.description.as_deref().unwrap_or_default().to_string(),
                Value::Object((*t.input_schema).clone()),
            )
        })
        .collect();
    assert_eq!(served, expected);
    assert_eq!(served.len(), 11);
    for tool in &listed {
        let hints = tool.annotations.as_ref().expect("annotations");
        assert_eq!(hints.read_only_hint, Some(true), "{}", tool.name);
        assert_eq!(hints.destructive_hint, Some(false), "{}", tool.name);
        assert_eq!(hints.open_world_hint, Some(false), "{}", tool.name);
        assert!(tool.output_schema.is_some(), "{}", tool.name);
    }
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_code_tools_answer_with_evidence() {
    let repo = fixture();
    let (session, _) = connect(repo.path(), &[]).await;

    let found = call(&session, "search_code", json!({"query": "collection name"})).await;
    assert!(evidence_paths(&found).contains(&"pkg/rag_common.py".to_string()));

    let symbol = call(
        &session,
        "find_symbol",
        json!({"name": "get_collection_name"}),
    )
    .await;
    assert_eq!(evidence_paths(&symbol), ["pkg/rag_common.py"]);
    let record = &symbol.structured_content.as_ref().unwrap()["evidence"][0];
    assert_eq!(record["start_line"], 4);
    assert_eq!(record["kind"], "function");
    assert!(record["snippet"]
        .as_str()
        .unwrap()
        .starts_with("def get_collection_name(kind):"));
    // The text form is what the agent's model reads: path:lines, then numbered lines.
    assert!(text_of(&symbol).contains("pkg/rag_common.py:4-5 function get_collection_name"));

    let read = call(
        &session,
        "read_evidence",
        json!({"path": "pkg/rag_common.py", "start_line": 1, "end_line": 1}),
    )
    .await;
    assert_eq!(
        read.structured_content.as_ref().unwrap()["evidence"][0]["snippet"],
        "PREFIX = \"rag\""
    );

    let importers = call(
        &session,
        "find_importers",
        json!({"module": "pkg.rag_common"}),
    )
    .await;
    let mut paths = evidence_paths(&importers);
    paths.sort();
    assert_eq!(paths, ["ingest.py", "query.py"]);

    // No answer ever carries the secret.
    for result in [&found, &symbol, &read, &importers] {
        assert!(!serde_json::to_string(result)
            .unwrap()
            .contains("do-not-leak"));
    }
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_graph_diff_and_source_tools_answer_with_evidence() {
    let repo = fixture();
    let (session, _) = connect(repo.path(), &[]).await;

    let callers = call(
        &session,
        "get_callers",
        json!({"symbol": "get_collection_name"}),
    )
    .await;
    let mut paths = evidence_paths(&callers);
    paths.sort();
    paths.dedup();
    assert_eq!(paths, ["ingest.py", "query.py"]);

    // What ingest calls, resolved to the definition.
    let callees = call(&session, "get_callees", json!({"symbol": "ingest"})).await;
    let text = format!("{:?}", callees.structured_content);
    assert!(text.contains("get_collection_name"), "{text}");
    // A constant is read, not called: found as a reference.
    let references = call(&session, "find_references", json!({"symbol": "PREFIX"})).await;
    assert_eq!(evidence_paths(&references), ["pkg/rag_common.py"]);
    let record = &references.structured_content.as_ref().unwrap()["evidence"][0];
    assert_eq!(
        (record["start_line"].as_i64(), record["name"].as_str()),
        (Some(5), Some("pkg.rag_common.get_collection_name"))
    );

    let impact = call(
        &session,
        "analyze_impact",
        json!({"symbol": "get_collection_name"}),
    )
    .await;
    let names: Vec<String> = impact.structured_content.as_ref().unwrap()["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.iter().any(|n| n.contains("ingest")), "{names:?}");
    assert!(names.iter().any(|n| n.contains("search")), "{names:?}");

    let diff = call(&session, "read_git_diff", json!({})).await;
    assert!(evidence_paths(&diff).contains(&"ingest.py".to_string()));
    assert!(text_of(&diff).contains("name = get_collection_name(doc.kind)"));

    let sources = call(&session, "list_sources", json!({})).await;
    let structured = sources.structured_content.as_ref().unwrap();
    let guide = structured["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == "GUIDE.md")
        .expect("GUIDE.md is a source");
    let doc_id = guide["doc_id"].as_str().expect("a doc id").to_string();

    let section = call(
        &session,
        "read_source",
        json!({"doc_id": doc_id, "section": "Naming"}),
    )
    .await;
    assert!(
        text_of(&section).contains("The prefix is rag."),
        "{}",
        text_of(&section)
    );

    // No answer ever carries the secret.
    for result in [&callers, &impact, &diff, &sources, &section] {
        assert!(!serde_json::to_string(result)
            .unwrap()
            .contains("do-not-leak"));
    }
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_calls_get_protocol_errors_and_the_session_goes_on() {
    let repo = fixture();
    let (session, _) = connect(repo.path(), &[]).await;
    // An unknown tool is a JSON-RPC error (-32602) naming the real tools.
    let unknown = session
        .call_tool(
            CallToolRequestParams::new("delete_source")
                .with_arguments(arguments(json!({"doc_id": "x"}))),
        )
        .await
        .expect_err("an unknown tool is a protocol error");
    let message = unknown.to_string();
    assert!(
        message.contains("-32602") || message.contains("nvalid params"),
        "{message}"
    );
    assert!(
        message.contains("delete_source") && message.contains("search_code"),
        "{message}"
    );

    // Bad arguments are tool results with isError, saying what is wrong.
    let cases = [
        ("find_symbol", json!({"name": 7}), "field \"name\""),
        ("find_symbol", json!({"name": "x", "force": true}), "force"),
        ("search_code", json!({}), "query"),
        ("search_code", json!({"query": "x", "limit": 500}), "limit"),
        (
            "read_evidence",
            json!({"path": "../../etc/passwd", "start_line": 1, "end_line": 2}),
            "leaves the repository",
        ),
        (
            "read_evidence",
            json!({"path": "/etc/passwd", "start_line": 1, "end_line": 2}),
            "outside the repository",
        ),
        (
            "read_evidence",
            json!({"path": ".env", "start_line": 1, "end_line": 1}),
            "secret",
        ),
        (
            "read_evidence",
            json!({"path": "ingest.py", "start_line": 5, "end_line": 2}),
            "before start_line",
        ),
        ("read_source", json!({"doc_id": "../../x"}), "doc_id"),
    ];
    for (tool, args, expected) in cases {
        let result = call(&session, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{tool} {args}");
        let text = text_of(&result);
        assert!(text.contains(expected), "{tool} {args}: {text}");
        assert!(!text.contains("do-not-leak"));
    }
    // The session is still up and answering.
    let ok = call(&session, "find_symbol", json!({"name": "ingest"})).await;
    assert_eq!(evidence_paths(&ok), ["ingest.py"]);
    session.cancel().await.unwrap();
}

/// Raw lines a client may send that the SDK would drop or misname: each gets
/// its JSON-RPC error on stdout, and the session goes on.
#[test]
fn deep_and_malformed_requests_get_json_rpc_errors() {
    let repo = fixture();
    let mut child = cli::hermetic(BIN)
        .args(["mcp"])
        .current_dir(repo.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"search_code","arguments":{{"query":{}"x"{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        deep,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":17}}"#.to_string(),
        "this is not json".to_string(),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#.to_string(),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    // Replies made before the SDK sees a line and the SDK's own replies are
    // merged as they come, so their order is not the requests' order.
    let expected = ["2", "3", "4", "null", "5"];
    let mut codes = std::collections::BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !expected.iter().all(|id| codes.contains_key(*id)) {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = receiver
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no reply to every request; got {codes:?}"));
        let message: Value = serde_json::from_str(&line).unwrap();
        let code = message["error"]["code"].as_i64().unwrap_or(0);
        codes.insert(message["id"].to_string(), code);
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(codes.get("2"), Some(&-32600), "{codes:?}");
    assert_eq!(codes.get("3"), Some(&-32602), "{codes:?}");
    assert_eq!(codes.get("4"), Some(&-32602), "{codes:?}");
    assert_eq!(codes.get("null"), Some(&-32700), "{codes:?}");
    assert_eq!(codes.get("5"), Some(&0), "{codes:?}");
}
