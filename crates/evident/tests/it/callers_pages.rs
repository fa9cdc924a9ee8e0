//! `callers` in pages: every resolved call site is counted, only the page's
//! are read and listed, and the agent's `get_callers` lists a first page
//! with the full count.

use evident_agent::{Registry, ToolContext};
use evident_llm::ToolCall;
use evident_testkit::cli;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

/// `hub` called once by each of `callers` functions.
fn repo(callers: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("def hub():\n    return 1\n\n\n");
    for i in 0..callers {
        body += &format!("def caller_{i}():\n    return hub()\n\n\n");
    }
    std::fs::write(dir.path().join("m.py"), body).unwrap();
    let out = cli::run(BIN, dir.path(), &["index", "--quiet"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    dir
}

fn listed_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|l| l.starts_with("m.py:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn callers_come_in_pages_with_the_full_count() {
    let dir = repo(3);
    let root = dir.path();

    let out = cli::run(BIN, root, &["callers", "hub", "--limit", "2"]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    assert!(
        cli::stderr(&out).contains("3 resolved call site(s), 1-2 shown (--offset 2 for more)"),
        "{}",
        cli::stderr(&out)
    );
    let first = listed_lines(&cli::stdout(&out));
    assert_eq!(first, ["m.py:6-6", "m.py:10-10"], "{}", cli::stdout(&out));

    let out = cli::run(
        BIN,
        root,
        &["callers", "hub", "--limit", "2", "--offset", "2"],
    );
    assert!(cli::stderr(&out).contains("3 resolved call site(s), 3-3 shown"));
    assert_eq!(listed_lines(&cli::stdout(&out)), ["m.py:14-14"]);

    // The whole list fits the default page: no page note.
    let out = cli::run(BIN, root, &["callers", "hub"]);
    assert!(
        cli::stderr(&out).contains("3 resolved call site(s)\n"),
        "{}",
        cli::stderr(&out)
    );

    let out = cli::run(BIN, root, &["callers", "hub", "--offset", "9"]);
    assert!(
        cli::stderr(&out).contains("3 resolved call site(s), none shown past --offset 9"),
        "{}",
        cli::stderr(&out)
    );

    let out = cli::run(BIN, root, &["callers", "hub", "--limit", "0"]);
    assert_eq!(out.status.code(), Some(2), "an empty page is refused");
}

#[test]
fn the_agent_lists_a_first_page_and_counts_every_site() {
    let dir = repo(250);
    let root = dir.path();
    let registry = Registry::read_only(&[]).unwrap();
    let config = evident_index::Config::load(root).unwrap();
    let arguments = json!({"symbol": "hub"});
    let call = ToolCall {
        index: 0,
        id: None,
        name: "get_callers".into(),
        arguments_raw: arguments.to_string(),
        arguments,
    };
    let valid = registry.validate(&call, root, &config).unwrap();
    let output = valid
        .tool
        .run(&ToolContext::plain(root), &valid.arguments)
        .unwrap();
    assert!(
        output
            .summary
            .starts_with("250 call sites of hub (the first 200 listed): m.caller_0 at m.py:6"),
        "{}",
        output.summary
    );
    assert!(
        output.summary.ends_with(" and 242 more"),
        "{}",
        output.summary
    );
    assert_eq!(output.evidence.len(), 200);
}
