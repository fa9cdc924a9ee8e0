//! The protocol's input, passed on line by line with one check the SDK cannot
//! make: it parses each message with `serde_json`, which keeps the last of two
//! equal keys, so `{"path": "ok.py", "path": "/etc/passwd"}` would reach a tool
//! as one of them without a word. A `tools/call` message with a key written
//! twice is marked in its `_meta`, and the server refuses the call (the agent
//! refuses such arguments the same way).

use evident_agent::strict_json;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// The `_meta` key that carries the duplicate-key finding to the handler.
pub const DUPLICATE_KEY_MARK: &str = "dev.evident/duplicate-key";

/// The longest message passed on (the SDK's own limit); longer ones are dropped.
const MAX_LINE: u64 = 16 * 1024 * 1024;

/// Copies `input` to `output` line by line, marking duplicate-key calls, until
/// `input` ends or `output` closes.
pub async fn forward(input: impl AsyncRead + Unpin, mut output: impl AsyncWrite + Unpin) {
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
        let marked = mark_duplicate_keys(&line);
        let bytes = marked.as_deref().unwrap_or(&line);
        if output.write_all(bytes).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

/// `line` with the duplicate-key mark added, when it is a `tools/call` with a
/// key written twice; `None` to pass it on unchanged.
fn mark_duplicate_keys(line: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(line).ok()?;
    if !text.contains("tools/call") {
        return None;
    }
    let finding = strict_json::duplicate_key(text)?;
    let mut message: Value = serde_json::from_str(text).ok()?;
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
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

    #[test]
    fn only_calls_with_a_repeated_key_are_marked() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_evidence","arguments":{"path":"a.py","path":"/etc/passwd"}}}"#;
        let marked: Value = serde_json::from_slice(&mark_duplicate_keys(call).unwrap()).unwrap();
        let finding = marked["params"]["_meta"][DUPLICATE_KEY_MARK]
            .as_str()
            .unwrap();
        assert!(finding.starts_with("duplicate key \"path\""), "{finding}");
        let clean = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"path":"a.py"}}}"#;
        assert_eq!(mark_duplicate_keys(clean), None);
        let listing = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":1,"a":2,"b":"tools/call"}}"#;
        assert_eq!(mark_duplicate_keys(listing), None);
        assert_eq!(mark_duplicate_keys(b"tools/call garbage"), None);
    }

    #[tokio::test]
    async fn lines_pass_through_in_order_and_oversized_ones_are_dropped() {
        let mut input = b"one\n".to_vec();
        input.extend(vec![b'x'; MAX_LINE as usize + 10]);
        input.extend(b"\ntwo\nthree");
        let mut output = Vec::new();
        forward(&input[..], &mut output).await;
        assert_eq!(output, b"one\ntwo\nthree");
    }
}
