//! A minimal MCP client over raw JSON-RPC lines: initialise, send
//! `tools/call`s, and collect each answer by id. For tests that compare what
//! an MCP client gets with what other doors give (the SDK client tests live
//! in `crates/evident/tests/it/mcp/`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Starts `server` (a command speaking MCP on stdio), calls each `(tool,
/// arguments)` and returns the JSON-RPC answers in call order.
pub fn call_tools(mut server: Command, calls: &[(&str, Value)]) -> Vec<Value> {
    let mut child = server
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "evident-testkit", "version": "1"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (i, (tool, arguments)) in calls.iter().enumerate() {
        send(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}}),
        );
    }
    let mut answers: HashMap<u64, Value> = HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while answers.len() < calls.len() && Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        let message: Value = serde_json::from_str(&line).expect("stdout carries only JSON");
        if let Some(id) = message["id"].as_u64().filter(|id| *id > 0) {
            answers.insert(id, message);
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    (1..=calls.len() as u64)
        .map(|id| {
            answers
                .remove(&id)
                .unwrap_or_else(|| panic!("no answer to call {id}"))
        })
        .collect()
}
