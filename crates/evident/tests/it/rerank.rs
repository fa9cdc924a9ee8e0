//! `evident search --rerank` against the fake model server: the model's scores
//! reorder the fused results, are cached by (query, candidate, model), and any
//! failure (timeout, bad reply, server down) leaves the fused order, said once.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use evident_testkit::script::say;
use evident_testkit::{cli, dead_address, FakeServer, Script};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

fn evident(dir: &Path, args: &[&str]) -> Output {
    cli::run(BIN, dir, args)
}

fn names(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

/// A repository with three functions about collections, and a model config pointing at `base`.
fn fixture(base: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("store.py"),
        "def collection_name(kind):\n    return kind\n\n\ndef collection_size(items):\n    return len(items)\n\n\ndef collection_owner(user):\n    return user.name\n",
    )
    .unwrap();
    std::fs::write(
        root.join("evident.toml"),
        format!("[model]\nprovider = \"openai\"\nname = \"judge\"\nbase_url = \"{base}/v1\"\n"),
    )
    .unwrap();
    assert!(evident(root, &["index", "--quiet"]).status.success());
    dir
}

const SEARCH: &[&str] = &[
    "search",
    "collection",
    "--mode",
    "bm25",
    "--group",
    "chunk",
    "--json",
];

#[test]
fn the_models_scores_reorder_results_and_are_cached() {
    let server = FakeServer::start();
    let dir = fixture(&server.base);
    let root = dir.path();
    let fused = names(&evident(root, SEARCH));
    assert_eq!(fused.len(), 3);

    // The model likes the fused third best, then the first.
    server.push("/v1/chat/completions", say(r#"{"scores": [5, 0, 9]}"#));
    let args = [SEARCH, &["--rerank", "--explain"]].concat();
    let out = evident(root, &args);
    let reranked = names(&out);
    assert_eq!(
        reranked,
        vec![fused[2].clone(), fused[0].clone(), fused[1].clone()]
    );
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results[0]["score"], 9.0);
    assert!(
        results[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("rerank 9/10 (fused #3"),
        "{results:#}"
    );

    // What was asked: every candidate, numbered, with a schema for exactly three scores.
    let sent = &server.requests_to("/v1/chat/completions")[0].body;
    assert_eq!(sent["model"], "judge");
    let prompt = sent["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.starts_with("Query: collection") && prompt.contains("[3] store.py:"),
        "{prompt}"
    );
    let schema = &sent["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["properties"]["scores"]["minItems"], 3, "{sent}");

    // The same query again: every score comes from the cache, nothing is sent.
    let again = names(&evident(root, &[SEARCH, &["--rerank"]].concat()));
    assert_eq!(again, reranked);
    assert_eq!(server.requests_to("/v1/chat/completions").len(), 1);

    // --limit cuts after reranking; --rerank-top bounds what is scored.
    server.push("/v1/chat/completions", say(r#"{"scores": [1, 8]}"#));
    let out = evident(
        root,
        &[
            "search",
            "collection owner size name",
            "--mode",
            "bm25",
            "--group",
            "chunk",
            "--json",
            "--rerank",
            "--rerank-top",
            "2",
            "--limit",
            "1",
        ],
    );
    assert_eq!(names(&out).len(), 1);
    let sent = &server.requests_to("/v1/chat/completions")[1].body;
    assert_eq!(
        sent["response_format"]["json_schema"]["schema"]["properties"]["scores"]["maxItems"],
        2
    );
}

#[test]
fn failures_leave_the_fused_order_and_say_why() {
    let server = FakeServer::start();
    let dir = fixture(&server.base);
    let root = dir.path();
    let fused = names(&evident(root, SEARCH));
    let rerank = [SEARCH, &["--rerank"]].concat();

    // (answer, how many requests it takes, the reason given)
    let cases: Vec<(Script, usize, &str)> = vec![
        (
            say("I think the second one."),
            1,
            "the model's reply is not JSON",
        ),
        (
            say(r#"{"scores": [1, 2]}"#),
            1,
            "the model scored 2 candidates, not 3",
        ),
        (
            say(r#"{"scores": [1, 2, 42]}"#),
            1,
            "the model gave 42 as a score",
        ),
        // A 500 is retried twice.
        (
            Script::Answer {
                status: 500,
                body: "boom".into(),
            },
            3,
            "the model failed",
        ),
    ];
    for (script, attempts, why) in cases {
        for _ in 0..attempts {
            server.push("/v1/chat/completions", script.clone());
        }
        let out = evident(root, &rerank);
        assert_eq!(names(&out), fused, "{why}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("note: rerank skipped: ") && stderr.contains(why),
            "{stderr}"
        );
        assert!(stderr.contains("results are in fused order"), "{stderr}");
    }

    // A model slower than the budget: cut off at the budget, not after the stall.
    server.push(
        "/v1/chat/completions",
        Script::Silent(Duration::from_secs(20)),
    );
    let started = std::time::Instant::now();
    let out = evident(root, &[&rerank[..], &["--rerank-budget", "1"]].concat());
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(names(&out), fused);
    assert!(String::from_utf8_lossy(&out.stderr).contains("the model took longer than 1 s"));

    // No server at all.
    std::fs::write(
        root.join("evident.toml"),
        format!(
            "[model]\nprovider = \"openai\"\nname = \"judge\"\nbase_url = \"{}/v1\"\n",
            dead_address()
        ),
    )
    .unwrap();
    let out = evident(root, &rerank);
    assert_eq!(names(&out), fused);
    assert!(String::from_utf8_lossy(&out.stderr).contains("rerank skipped: the model failed"));

    // No model named anywhere: an error before any work, not a silent fallback.
    std::fs::remove_file(root.join("evident.toml")).unwrap();
    let out = evident(root, &rerank);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no model chosen"));
}
