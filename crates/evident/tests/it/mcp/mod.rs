//! `evident mcp` driven over stdio by real clients: `rmcp`'s Rust client
//! (and raw JSON-RPC lines, to see exactly what reaches stdout), and the
//! official Python SDK (`mcp` from PyPI, in the virtual environment that
//! `scripts/provision-mcp-client.sh` makes).

mod freshness_and_clients;
mod tools_and_errors;

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
