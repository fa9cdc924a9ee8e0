//! `evident mcp` driven over stdio by real clients: `rmcp`'s Rust client
//! (and raw JSON-RPC lines, to see exactly what reaches stdout), and the
//! official Python SDK (`mcp` from PyPI, in the virtual environment that
//! `scripts/provision-mcp-client.sh` makes).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use evident_agent::tools::builtin_tools;
use evident_agent::Registry;
use evident_testkit::cli;
use evident_testkit::git::git;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, JsonObject, NumberOrString, ProgressNotificationParam,
    ProgressToken, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_evident");

/// A client that keeps the progress notifications it receives.
#[derive(Clone, Default)]
struct Client {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

type Session = RunningService<RoleClient, Client>;

/// A small git repository: a module, two importers, a document, a secret,
/// and one uncommitted change (for `read_git_diff`).
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(
        root.join("pkg/rag_common.py"),
        "PREFIX = \"rag\"\n\n\ndef get_collection_name(kind):\n    return f\"{PREFIX}_{kind}\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("ingest.py"),
        "from pkg.rag_common import get_collection_name\n\n\ndef ingest(doc):\n    return get_collection_name(doc.kind)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("query.py"),
        "import pkg.rag_common\n\n\ndef search(q):\n    return pkg.rag_common.get_collection_name(q.kind)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("GUIDE.md"),
        "# Collections\n\nEvery collection is named by get_collection_name.\n\n## Naming\n\nThe prefix is rag.\n",
    )
    .unwrap();
    std::fs::write(root.join(".env"), "API_TOKEN=do-not-leak-4711\n").unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "first"]);
    std::fs::write(
        root.join("ingest.py"),
        "from pkg.rag_common import get_collection_name\n\n\ndef ingest(doc):\n    name = get_collection_name(doc.kind)\n    return name\n",
    )
    .unwrap();
    dir
}

async fn connect(root: &Path, extra: &[&str]) -> (Session, Client) {
    let mut command = tokio::process::Command::from(cli::hermetic(BIN));
    command.arg("mcp").arg("--repo").arg(root).args(extra);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("evident mcp starts");
    let client = Client::default();
    let session = client
        .clone()
        .serve(transport)
        .await
        .expect("initialize succeeds");
    (session, client)
}

fn arguments(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => panic!("arguments must be an object"),
    }
}

async fn call(session: &Session, name: &str, args: Value) -> CallToolResult {
    session
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments(args)))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn evidence_paths(result: &CallToolResult) -> Vec<String> {
    assert_ne!(result.is_error, Some(true), "{}", text_of(result));
    let structured = result
        .structured_content
        .as_ref()
        .expect("structured content");
    structured["evidence"]
        .as_array()
        .expect("an evidence list")
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_string())
        .collect()
}

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

/// Writes `count` small Python modules under `root/gen`.
fn many_files(root: &Path, count: usize, salt: &str) {
    std::fs::create_dir_all(root.join("gen")).unwrap();
    for i in 0..count {
        let body: String = (0..20)
            .map(|j| format!("def f{i}_{j}_{salt}(x):\n    return helper_{j}(x) + {j}\n\n"))
            .collect();
        std::fs::write(root.join(format!("gen/m{i}.py")), body).unwrap();
    }
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

/// A mix of calls across the tools, as an agent would make them.
fn mixed_call(i: usize) -> (&'static str, Value) {
    match i % 6 {
        0 => ("search_code", json!({"query": "collection name"})),
        1 => ("find_symbol", json!({"name": "get_collection_name"})),
        2 => (
            "read_evidence",
            json!({"path": "ingest.py", "start_line": 1, "end_line": 5}),
        ),
        3 => ("find_importers", json!({"module": "pkg.rag_common"})),
        4 => ("get_callers", json!({"symbol": "get_collection_name"})),
        _ => ("analyze_impact", json!({"symbol": "get_collection_name"})),
    }
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
