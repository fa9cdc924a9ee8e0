//! Freshness and clients.

use super::*;

/// Raw lines in, raw lines out: every line the server writes to stdout is a
/// JSON-RPC message, whatever it is sent.
#[test]
fn stdout_carries_only_protocol_messages() {
    let repo = fixture();
    let log = repo.path().join("mcp.log");
    let mut child = cli::hermetic(BIN)
        .args(["mcp", "--repo"])
        .arg(repo.path())
        .arg("--log-file")
        .arg(&log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "this is not json",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_symbol","arguments":{"name":"ingest"}}}"#,
        r#"{"not":"a message"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"find_symbol","arguments":"name"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_evidence","arguments":{"path":"ingest.py","start_line":-1,"end_line":2}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"bash","arguments":{"command":"rm -rf /"}}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
        // serde_json would keep the second path; the server refuses the call.
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_evidence","arguments":{"path":"ingest.py","start_line":1,"end_line":2,"path":"/etc/passwd"}}}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_evidence","arguments":{"path":".env","p\u0061th":"ingest.py","start_line":1,"end_line":1}}}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let reader = BufReader::new(child.stdout.take().unwrap());
    let mut by_id = std::collections::HashMap::new();
    let mut others = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    for line in reader.lines() {
        let line = line.unwrap();
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        match message["id"].as_u64() {
            Some(id) => {
                by_id.insert(id, message);
            }
            None => others.push(message),
        }
        if (2..=9).all(|id| by_id.contains_key(&id)) || Instant::now() > deadline {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "the server exits cleanly when stdin closes"
    );
    // With --log-file, the log goes there and stderr stays quiet.
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(stderr, "");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("evident mcp: serving over stdio"),
        "{logged}"
    );
    assert!(logged.contains("index up to date"), "{logged}");
    // The call after the garbage line was answered.
    assert!(by_id[&2]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("ingest.py"));
    assert_eq!(by_id[&3]["error"]["code"], -32601, "{}", by_id[&3]);
    // Arguments that are not an object do not make a `tools/call` (rmcp answers -32601).
    assert!(by_id[&4]["error"]["code"].is_i64(), "{}", by_id[&4]);
    assert_eq!(by_id[&5]["result"]["isError"], true, "{}", by_id[&5]);
    assert!(by_id[&5]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("start_line"));
    assert_eq!(by_id[&6]["error"]["code"], -32602, "{}", by_id[&6]);
    assert_eq!(by_id[&7]["result"]["tools"].as_array().unwrap().len(), 11);
    for id in [8, 9] {
        let result = &by_id[&id]["result"];
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("duplicate key \"path\""), "{text}");
        assert!(
            !text.contains("root:") && !text.contains("API_TOKEN"),
            "{text}"
        );
    }
    // Well-formed JSON that is not a message gets "Invalid Request" (no id).
    assert!(
        others.iter().any(|m| m["error"]["code"] == -32600),
        "{others:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_changed_between_calls_is_seen() {
    let repo = fixture();
    // A long wait: the answer must be the fresh one, however loaded the machine.
    let (session, _) = connect(repo.path(), &["--refresh-wait", "60000"]).await;
    let before = call(
        &session,
        "find_symbol",
        json!({"name": "rebuild_collections"}),
    )
    .await;
    assert!(evidence_paths(&before).is_empty());

    std::fs::write(
        repo.path().join("pkg/admin.py"),
        "def rebuild_collections():\n    return []\n",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let added = call(
        &session,
        "find_symbol",
        json!({"name": "rebuild_collections"}),
    )
    .await;
    assert_eq!(evidence_paths(&added), ["pkg/admin.py"]);
    assert_eq!(added.structured_content.as_ref().unwrap()["stale"], false);

    // An edit in place (same directory, new content) and a deletion.
    std::fs::write(
        repo.path().join("pkg/admin.py"),
        "\n\ndef rebuild_collections(force):\n    return [force]\n",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let edited = call(
        &session,
        "find_symbol",
        json!({"name": "rebuild_collections"}),
    )
    .await;
    assert_eq!(
        edited.structured_content.as_ref().unwrap()["evidence"][0]["start_line"],
        3
    );

    std::fs::remove_file(repo.path().join("pkg/admin.py")).unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let removed = call(
        &session,
        "find_symbol",
        json!({"name": "rebuild_collections"}),
    )
    .await;
    assert!(evidence_paths(&removed).is_empty());
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_configuration_is_reported_per_call_and_mended_live() {
    let repo = fixture();
    std::fs::write(
        repo.path().join("evident.toml"),
        "[index]\nmax_file_sise = 10\n",
    )
    .unwrap();
    let (session, _) = connect(repo.path(), &[]).await;
    let broken = call(&session, "find_symbol", json!({"name": "ingest"})).await;
    assert_eq!(broken.is_error, Some(true));
    let text = text_of(&broken);
    assert!(
        text.contains("evident.toml") && text.contains("max_file_sise"),
        "{text}"
    );
    // Mended while the server runs: the next calls work without a restart.
    std::fs::write(
        repo.path().join("evident.toml"),
        "[index]\nmax_file_size = 100000\n",
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let result = call(&session, "find_symbol", json!({"name": "ingest"})).await;
        if result.is_error != Some(true)
            && result.structured_content.as_ref().unwrap()["stale"] == false
        {
            assert_eq!(evidence_paths(&result), ["ingest.py"]);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never recovered: {}",
            text_of(&result)
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn first_use_builds_the_index_with_progress_notifications() {
    let repo = fixture();
    many_files(repo.path(), 1500, "a");
    assert!(!repo.path().join(".evident").exists());
    let (session, client) = connect(repo.path(), &[]).await;
    let token = ProgressToken(NumberOrString::String("first-use".into()));
    let mut params = CallToolRequestParams::new("find_symbol")
        .with_arguments(arguments(json!({"name": "f1499_19_a"})));
    params.meta = Some(RequestMetaObject::with_progress_token(token.clone()));
    let result = session.call_tool(params).await.unwrap();
    assert_eq!(evidence_paths(&result), ["gen/m1499.py"]);
    let progress = client.progress.lock().unwrap().clone();
    assert!(
        !progress.is_empty(),
        "no progress notification while indexing"
    );
    // rmcp's client puts its own token on the request; the server echoes
    // whatever the request carried (the Python test checks the echo itself).
    assert!(
        progress
            .iter()
            .all(|p| p.progress_token == progress[0].progress_token),
        "{progress:?}"
    );
    assert!(
        progress
            .iter()
            .all(|p| p.total.is_some_and(|t| t >= 1500.0)),
        "{progress:?}"
    );
    assert!(
        progress.windows(2).all(|w| w[0].progress < w[1].progress),
        "progress must increase"
    );
    assert!(progress[0]
        .message
        .as_deref()
        .unwrap_or("")
        .contains("indexing"));
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_refresh_answers_from_the_old_index_marked_stale() {
    let repo = fixture();
    many_files(repo.path(), 1500, "a");
    let (session, _) = connect(repo.path(), &["--refresh-wait", "0"]).await;
    // The first call waits for the first index (there is nothing else to answer from).
    let first = call(
        &session,
        "find_symbol",
        json!({"name": "get_collection_name"}),
    )
    .await;
    assert_eq!(evidence_paths(&first), ["pkg/rag_common.py"]);
    // Every generated file changes: the refresh takes a while, and the
    // answer comes at once from the index as it was, marked stale.
    many_files(repo.path(), 1500, "b");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let stale = call(
        &session,
        "find_symbol",
        json!({"name": "get_collection_name"}),
    )
    .await;
    assert_eq!(evidence_paths(&stale), ["pkg/rag_common.py"]);
    let structured = stale.structured_content.as_ref().unwrap();
    assert_eq!(structured["stale"], true, "{structured}");
    assert!(structured["note"]
        .as_str()
        .unwrap()
        .contains("may be stale"));
    assert!(text_of(&stale).contains("may be stale"));
    // Once the refresh is done the new definitions are there.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let fresh = call(&session, "find_symbol", json!({"name": "f0_0_b"})).await;
        if fresh.structured_content.as_ref().unwrap()["stale"] == false {
            assert_eq!(evidence_paths(&fresh), ["gen/m0.py"]);
            break;
        }
        assert!(Instant::now() < deadline, "the refresh never finished");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    session.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn results_are_cut_to_the_clients_budget() {
    let repo = fixture();
    many_files(repo.path(), 40, "a");
    let (session, _) = connect(repo.path(), &["--max-output-bytes", "1000"]).await;
    let result = call(
        &session,
        "search_code",
        json!({"query": "helper", "limit": 20, "group": "chunk"}),
    )
    .await;
    let text = text_of(&result);
    assert!(text.len() <= 1000, "{} bytes", text.len());
    assert!(text.contains("[... omitted "), "{text}");
    let structured = result.structured_content.as_ref().unwrap();
    assert!(
        structured.to_string().len() <= 1100,
        "{}",
        structured.to_string().len()
    );
    let kept = structured["evidence"].as_array().unwrap().len();
    let omitted = structured["omitted"].as_u64().unwrap() as usize;
    assert!(
        omitted > 0 && kept + omitted == 20,
        "kept {kept}, omitted {omitted}"
    );
    session.cancel().await.unwrap();
}

/// Eight clients at once (eight server processes on one repository, and
/// eight tasks sharing one connection), with a file rewritten underneath:
/// every call succeeds and finds what is always there.
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_clients_with_a_file_changing_underneath() {
    let repo = fixture();
    let root = repo.path().to_path_buf();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (root, stop) = (root.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                std::fs::write(
                    root.join("churn.py"),
                    format!("def churn_{n}():\n    return {n}\n"),
                )
                .unwrap();
                std::thread::sleep(Duration::from_millis(30));
            }
            n
        })
    };
    let check = |result: &CallToolResult, name: &str| {
        assert_ne!(result.is_error, Some(true), "{name}: {}", text_of(result));
        assert!(!evidence_paths(result).is_empty(), "{name} found nothing");
    };
    // Eight processes.
    let mut tasks = Vec::new();
    for client in 0..8 {
        let root = root.clone();
        tasks.push(tokio::spawn(async move {
            let (session, _) = connect(&root, &[]).await;
            for i in 0..25 {
                let (name, args) = mixed_call(client + i);
                let result = call(&session, name, args).await;
                check(&result, name);
            }
            session.cancel().await.unwrap();
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    // Eight tasks, one connection: requests in flight together.
    let (session, _) = connect(&root, &[]).await;
    let peer = session.peer().clone();
    let mut tasks = Vec::new();
    for client in 0..8 {
        let peer = peer.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..25 {
                let (name, args) = mixed_call(client + i);
                let result = peer
                    .call_tool(CallToolRequestParams::new(name).with_arguments(arguments(args)))
                    .await
                    .unwrap();
                check(&result, name);
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let rewrites = writer.join().unwrap();
    assert!(rewrites > 3);
    session.cancel().await.unwrap();
}

/// The official Python SDK as the client (`scripts/provision-mcp-client.sh`
/// makes its virtual environment; `scripts/test` requires it).
#[test]
fn python_sdk_client() {
    let venv = std::env::var_os("EVIDENT_MCP_VENV")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/evident/mcp-venv")))
        .expect("a venv location");
    let python = venv.join("bin/python");
    if !python.exists() {
        let why = format!(
            "no Python MCP SDK at {} (run scripts/provision-mcp-client.sh)",
            venv.display()
        );
        evident_testkit::skip::missing(
            Some("EVIDENT_REQUIRE_MCP_CLIENT"),
            "Python MCP client",
            &why,
        );
        return;
    }
    let repo = fixture();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let output = Command::new(&python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_evident"))
        .arg(repo.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("all checks passed"), "{stdout}");
    // The tools the Python client saw are the agent's, definition for definition.
    let listed: Value = stdout
        .lines()
        .find_map(|line| line.strip_prefix("TOOLS "))
        .map(|json| serde_json::from_str(json).unwrap())
        .expect("the client printed the tool list");
    let expected: Vec<Value> = Registry::for_clients()
        .unwrap()
        .schemas()
        .into_iter()
        .map(|s| json!({"name": s.name, "description": s.description, "inputSchema": s.parameters}))
        .collect();
    assert_eq!(listed, Value::Array(expected));
}

/// With the file watcher, a call made right after an edit sees it: no stat
/// pass interval to wait out (calls within 250 ms of each other would
/// otherwise share one pass).
#[tokio::test(flavor = "multi_thread")]
async fn a_call_right_after_each_edit_sees_it() {
    let repo = fixture();
    let (session, _) = connect(repo.path(), &["--refresh-wait", "60000"]).await;
    call(&session, "find_symbol", json!({"name": "ingest"})).await;
    for i in 0..5 {
        let name = format!("made_now_{i}");
        std::fs::write(
            repo.path().join(format!("made_{i}.py")),
            format!("def {name}():\n    return {i}\n"),
        )
        .unwrap();
        let found = call(&session, "find_symbol", json!({"name": name})).await;
        assert_eq!(evidence_paths(&found), [format!("made_{i}.py")], "{name}");
    }
}
