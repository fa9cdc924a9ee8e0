//! The protocol's input, checked line by line before the SDK sees it, for
//! what the SDK would get wrong:
//! - a message nested deeper than [`MAX_DEPTH`] (the SDK's parser stops at
//!   128 levels and the message is dropped without a reply: the client
//!   waits forever) gets a JSON-RPC "invalid request" (-32600);
//! - a line that is not JSON gets a "parse error" (-32700);
//! - a `tools/call` without params or whose `name` is not a string gets
//!   "invalid params" (-32602; the SDK answered "method not found");
//! - `serde_json` keeps the last of two equal keys, so `{"path": "ok.py",
//!   "path": "/etc/passwd"}` would reach a tool as one of them without a
//!   word: a `tools/call` with a key written twice is marked in its
//!   `_meta`, and the server refuses the call (the agent refuses such
//!   arguments the same way).
//!
//! Replies made here go out through [`merge_output`], between whole lines of
//! the SDK's own output.

use evident_agent::strict_json;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The `_meta` key that carries the duplicate-key finding to the handler.
pub const DUPLICATE_KEY_MARK: &str = "dev.evident/duplicate-key";

/// The longest message passed on (the SDK's own limit); longer ones are dropped.
const MAX_LINE: u64 = 16 * 1024 * 1024;

/// The deepest a message may nest arrays and objects (no MCP message comes
/// near it; the SDK's parser gives up at 128).
pub const MAX_DEPTH: usize = 64;

/// What to do with one input line.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Pass it on, as it is or rewritten.
    Pass(Option<Vec<u8>>),
    /// Answer it here with this JSON-RPC error.
    Reply(Vec<u8>),
}

/// Copies `input` to `output` line by line, checked and marked, until
/// `input` ends or `output` closes; replies made here go to `replies`.
pub async fn forward(
    input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    replies: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    // Inside a line over the limit: its pieces are dropped up to its end.
    let mut skipping = false;
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let complete = line.ends_with(b"\n");
        if skipping || (!complete && line.len() as u64 == MAX_LINE) {
            // Too long: dropped whole, as the SDK would.
            skipping = !complete;
            continue;
        }
        let marked = match check(&line) {
            Verdict::Reply(reply) => {
                let _ = replies.send(reply);
                continue;
            }
            Verdict::Pass(marked) => marked,
        };
        let bytes = marked.as_deref().unwrap_or(&line);
        if output.write_all(bytes).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

/// Writes the SDK's output and the replies made here to `output`, each a
/// whole line, until the SDK's output ends.
pub async fn merge_output(
    sdk: impl AsyncRead + Unpin,
    mut replies: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut sdk = BufReader::new(sdk);
    let mut line = Vec::new();
    loop {
        tokio::select! {
            read = sdk.read_until(b'\n', &mut line) => {
                if !matches!(read, Ok(n) if n > 0) {
                    return;
                }
                if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                    return;
                }
                line.clear();
            }
            Some(reply) = replies.recv() => {
                if output.write_all(&reply).await.is_err() || output.flush().await.is_err() {
                    return;
                }
            }
        }
    }
}

fn check(line: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(line) else {
        return Verdict::Reply(error_reply(&Value::Null, -32700, "Parse error: not UTF-8"));
    };
    if text.trim().is_empty() {
        return Verdict::Pass(None);
    }
    let (shallow, depth) = without_deep_values(text, MAX_DEPTH);
    if depth > MAX_DEPTH {
        let id = serde_json::from_str::<Value>(&shallow)
            .ok()
            .and_then(|m| m.get("id").cloned())
            .unwrap_or(Value::Null);
        return Verdict::Reply(error_reply(
            &id,
            -32600,
            &format!("Invalid Request: nested {depth} levels deep; the limit is {MAX_DEPTH}"),
        ));
    }
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return Verdict::Reply(error_reply(&Value::Null, -32700, "Parse error: not JSON"));
    };
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return Verdict::Pass(None);
    }
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let named = message
        .get("params")
        .and_then(|p| p.get("name"))
        .is_some_and(Value::is_string);
    if !named && !id.is_null() {
        return Verdict::Reply(error_reply(
            &id,
            -32602,
            "Invalid params: tools/call needs params with a string `name`",
        ));
    }
    Verdict::Pass(mark_duplicate_keys(text, message))
}

fn error_reply(id: &Value, code: i64, message: &str) -> Vec<u8> {
    let mut reply = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    reply.push(b'\n');
    reply
}

/// `text` with each array or object nested deeper than `limit` written as
/// `null`, and the deepest nesting in `text`: the shallow copy can be
/// parsed for the message's `id`.
fn without_deep_values(text: &str, limit: usize) -> (String, usize) {
    let mut out = Vec::with_capacity(text.len());
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    // The depth at which a value too deep began: its bytes are left out.
    let mut dropping: Option<usize> = None;
    for &c in text.as_bytes() {
        let keep = dropping.is_none();
        if in_string {
            if keep {
                out.push(c);
            }
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                if keep {
                    out.push(c);
                }
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
                if keep && depth > limit {
                    dropping = Some(depth);
                    out.extend_from_slice(b"null");
                } else if keep {
                    out.push(c);
                }
            }
            b'}' | b']' => {
                if dropping == Some(depth) {
                    dropping = None;
                } else if keep {
                    out.push(c);
                }
                depth = depth.saturating_sub(1);
            }
            _ if keep => out.push(c),
            _ => {}
        }
    }
    (String::from_utf8(out).unwrap_or_default(), deepest)
}

/// The call with the duplicate-key mark added, when a key is written
/// twice; `None` to pass it on unchanged.
fn mark_duplicate_keys(text: &str, mut message: Value) -> Option<Vec<u8>> {
    let finding = strict_json::duplicate_key(text)?;
    let params = message.get_mut("params")?.as_object_mut()?;
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    meta.as_object_mut()?
        .insert(DUPLICATE_KEY_MARK.into(), json!(finding));
    let mut out = serde_json::to_vec(&message).ok()?;
    out.push(b'\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passed(line: &[u8]) -> Option<Vec<u8>> {
        match check(line) {
            Verdict::Pass(marked) => marked,
            Verdict::Reply(reply) => panic!("answered: {}", String::from_utf8_lossy(&reply)),
        }
    }

    fn reply(line: &[u8]) -> Value {
        match check(line) {
            Verdict::Reply(reply) => serde_json::from_slice(&reply).unwrap(),
            Verdict::Pass(_) => panic!("passed on: {}", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn only_calls_with_a_repeated_key_are_marked() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_evidence","arguments":{"path":"a.py","path":"/etc/passwd"}}}"#;
        let marked: Value = serde_json::from_slice(&passed(call).unwrap()).unwrap();
        let finding = marked["params"]["_meta"][DUPLICATE_KEY_MARK]
            .as_str()
            .unwrap();
        assert!(finding.starts_with("duplicate key \"path\""), "{finding}");
        let clean = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"path":"a.py"}}}"#;
        assert_eq!(passed(clean), None);
        let listing = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":1,"a":2,"b":"tools/call"}}"#;
        assert_eq!(passed(listing), None);
    }

    /// Too deep: "invalid request" with the message's own id, at any depth
    /// (the SDK's parser gave up at 128 and the client waited forever).
    #[test]
    fn a_message_nested_too_deep_is_answered() {
        for depth in [MAX_DEPTH + 1, 127, 128, 129, 50_000] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":"deep-{depth}","method":"tools/call","params":{{"name":"search_code","arguments":{{"query":"x","k":{}1{}}}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let answer = reply(line.as_bytes());
            assert_eq!(answer["id"], format!("deep-{depth}"));
            assert_eq!(answer["error"]["code"], -32600);
        }
        let fine = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{}1{}}}}}"#,
            "[".repeat(40),
            "]".repeat(40)
        );
        assert_eq!(passed(fine.as_bytes()), None);
    }

    #[test]
    fn bad_calls_and_bad_json_get_the_codes_json_rpc_names() {
        for call in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[]}"#,
        ] {
            let answer = reply(call.as_bytes());
            assert_eq!(
                (answer["id"].clone(), answer["error"]["code"].clone()),
                (json!(7), json!(-32602)),
                "{call}"
            );
        }
        let answer = reply(b"tools/call garbage\n");
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (Value::Null, json!(-32700))
        );
    }

    /// Strings may hold brackets and escaped quotes: they are not nesting.
    #[test]
    fn brackets_inside_strings_are_not_depth() {
        let text = format!(
            r#"{{"a":"{}\"{}","b":[1]}}"#,
            "[".repeat(200),
            "{".repeat(200)
        );
        let (shallow, depth) = without_deep_values(&text, 1);
        assert_eq!(depth, 2);
        assert_eq!(
            shallow,
            format!(
                r#"{{"a":"{}\"{}","b":null}}"#,
                "[".repeat(200),
                "{".repeat(200)
            )
        );
    }

    #[tokio::test]
    async fn lines_pass_through_in_order_and_oversized_ones_are_dropped() {
        let mut input = b"{\"one\":1}\n".to_vec();
        input.extend(vec![b'x'; MAX_LINE as usize + 10]);
        input.extend(b"\n{\"two\":2}\n{\"three\":3}");
        let mut output = Vec::new();
        let (replies, _answers) = mpsc::unbounded_channel();
        forward(&input[..], &mut output, replies).await;
        assert_eq!(output, b"{\"one\":1}\n{\"two\":2}\n{\"three\":3}");
    }
}
