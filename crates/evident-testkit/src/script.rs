//! Scripted model replies in the OpenAI streaming format (SSE), the shape the
//! agent and CLI tests script most.

use serde_json::{json, Value};

use crate::Script;

/// A reply that asks for these tool calls, `(name, arguments as JSON text)`, in order.
pub fn calls(list: &[(&str, &str)]) -> Script {
    let tool_calls: Vec<Value> = list
        .iter()
        .enumerate()
        .map(|(i, (name, arguments))| {
            json!({"index": i, "id": format!("call_{i}"), "type": "function",
                   "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    Script::sse(&[
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": tool_calls}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ])
}

/// A reply that says `text` and stops.
/// The reply to evident's intent call (a constrained JSON answer): the
/// intent and the subject's number among the candidates (0: none).
pub fn intent(name: &str, subject: u32) -> Script {
    say(&format!(r#"{{"intent": "{name}", "subject": {subject}}}"#))
}

pub fn say(text: &str) -> Script {
    Script::sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}),
    ])
}
