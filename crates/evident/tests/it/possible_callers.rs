//! "Possible" kept apart from "none", at every door: a method whose only
//! outside caller is `current_app.url_for(...)` (a receiver whose type no
//! static rule knows) is reported with that call as a possible call site, by
//! `evident callers`, `evident impact`, `evident def`, the agent's
//! `get_callers` and MCP's `analyze_impact`, each with both counts.

use std::path::Path;

use evident_agent::{Registry, ToolContext};
use evident_llm::ToolCall;
use evident_testkit::cli;
use evident_testkit::fs::write_all;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_evident");

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_all(
        dir.path(),
        &[
            (
                "app.py",
                "class Flask:\n    def url_for(self, endpoint):\n        return \"/\" + endpoint\n\n    def run(self):\n        return self.url_for(\"index\")\n\n\nclass Blueprint:\n    def url_for(self, endpoint):\n        return \"/bp/\" + endpoint\n",
            ),
            ("proxies.py", "current_app = None\n"),
            (
                "helpers.py",
                "from proxies import current_app\n\n\ndef url_for(endpoint):\n    return current_app.url_for(endpoint)\n",
            ),
        ],
    );
    let out = cli::run(BIN, dir.path(), &["index", "--quiet"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    dir
}

fn tool(root: &Path, name: &str, arguments: Value) -> String {
    let registry = Registry::read_only(&[]).unwrap();
    let config = evident_index::Config::load(root).unwrap();
    let call = ToolCall {
        index: 0,
        id: None,
        name: name.into(),
        arguments_raw: arguments.to_string(),
        arguments,
    };
    let valid = registry.validate(&call, root, &config).unwrap();
    let output = valid
        .tool
        .run(&ToolContext::plain(root), &valid.arguments)
        .unwrap();
    output.summary
}

#[test]
fn every_door_counts_resolved_and_possible_callers_apart() {
    let dir = repo();
    let root = dir.path();

    let out = cli::run(BIN, root, &["callers", "app.Flask.url_for"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    assert!(
        cli::stderr(&out).contains(
            "1 resolved call site(s); 1 possible call site(s) whose receiver type is unknown"
        ),
        "{}",
        cli::stderr(&out)
    );
    let listed = cli::stdout(&out);
    assert!(
        listed.contains("app.py:6") && listed.contains("helpers.py:5"),
        "{listed}"
    );

    let out = cli::run(BIN, root, &["impact", "app.Flask.url_for"]);
    let text = cli::stdout(&out);
    assert!(text.contains("possible (not resolved"), "{text}");
    assert!(
        text.contains("and 1 possible call site(s) whose receiver type is unknown"),
        "{text}"
    );

    let out = cli::run(BIN, root, &["def", "helpers.py:5:24", "--json"]);
    let answers: Value = serde_json::from_slice(&out.stdout).unwrap();
    let answers = answers.as_array().unwrap();
    assert!(!answers.is_empty());
    for answer in answers {
        assert_ne!(answer["qualified_name"], "helpers.url_for", "{answer}");
        assert_eq!(answer["confidence"], "name_only", "{answer}");
    }

    let summary = tool(root, "get_callers", json!({"symbol": "app.Flask.url_for"}));
    assert!(
        summary.starts_with("1 call site of app.Flask.url_for: ")
            && summary.contains("; 1 possible call site whose receiver type is unknown: ")
            && summary.contains("helpers.py:5"),
        "{summary}"
    );

    let mut server = cli::command(BIN, root);
    server.args(["mcp", "--repo", "."]);
    let answers = evident_testkit::mcp::call_tools(
        server,
        &[("analyze_impact", json!({"symbol": "app.Flask.url_for"}))],
    );
    let text = answers[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("1 possible call site whose receiver type is unknown"),
        "{text}"
    );
}
