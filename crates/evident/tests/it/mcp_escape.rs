//! The escape and leak corpus (`evident-agent/tests/escape_corpus.json`)
//! through `evident mcp`, as raw JSON-RPC lines (so duplicate keys and
//! malformed arguments reach the server as written): every call is refused,
//! as an `isError` result or a JSON-RPC error, with the same reason the agent
//! gives, and no byte of a forbidden file ever reaches stdout.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use evident_testkit::cli;
use evident_testkit::hostile_repo::{escape_corpus, hostile_repo, CANARY};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_evident");

#[test]
fn every_hostile_call_is_refused_over_mcp_and_nothing_leaks() {
    let hostile = hostile_repo();
    let corpus = escape_corpus();
    assert!(corpus.len() >= 60);
    let mut child = cli::hermetic(BIN)
        .args(["mcp", "--repo"])
        .arg(&hostile.repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"escape","version":"1"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    for (i, case) in corpus.iter().enumerate() {
        let raw = hostile.expand(&case.arguments);
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":{},"arguments":{raw}}}}}"#,
            i + 1,
            json!(case.tool)
        )
        .unwrap();
    }
    // A last request: once every answer is in, stdin closes.
    let last = corpus.len() + 1;
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":{last},"method":"tools/list"}}"#
    )
    .unwrap();
    stdin.flush().unwrap();

    let expected: Vec<usize> = corpus
        .iter()
        .enumerate()
        .filter(|(_, c)| c.mcp_refused_with.as_deref() != Some("ignored"))
        .map(|(i, _)| i + 1)
        .chain([last])
        .collect();
    let answers = read_answers(child.stdout.take().unwrap(), &expected);
    drop(stdin);
    let _ = child.wait();

    let mut failures = Vec::new();
    for (i, case) in corpus.iter().enumerate() {
        let id = i + 1;
        let expect = case.mcp_refused_with.as_deref();
        let Some(answer) = answers.get(&id) else {
            if expect != Some("ignored") {
                failures.push(format!("{}: no answer", case.why));
            }
            continue;
        };
        let message = if let Some(error) = answer.get("error") {
            if expect == Some("json-rpc error") {
                continue;
            }
            error["message"].as_str().unwrap_or_default().to_string()
        } else {
            let result = &answer["result"];
            if result["isError"] != true {
                failures.push(format!("{}: ran: {result}", case.why));
                continue;
            }
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let wanted = expect.unwrap_or(&case.refused_with);
        if !message.contains(wanted) {
            failures.push(format!(
                "{} ({} {}): expected {wanted:?} in: {message}",
                case.why, case.tool, case.arguments
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The server's answers by id, until every expected id has one (or a
/// minute passes); no line may carry the canary.
fn read_answers(stdout: std::process::ChildStdout, expected: &[usize]) -> HashMap<usize, Value> {
    let mut answers: HashMap<usize, Value> = HashMap::new();
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if lines.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while let Ok(line) = received.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        assert!(
            !line.contains(CANARY),
            "stdout leaked a forbidden file: {line}"
        );
        let message: Value = serde_json::from_str(&line).expect("stdout carries only JSON");
        if let Some(id) = message["id"].as_u64() {
            answers.insert(id as usize, message);
        }
        if expected.iter().all(|id| answers.contains_key(id)) {
            break;
        }
    }
    answers
}
