//! The JSON-action protocol (seed 003): the model answers with one object,
//! `{"action": "call_tool", "tool": ..., "arguments": {...}}` or
//! `{"action": "final_answer", "answer": "..."}`, possibly in a Markdown fence
//! or with text around it.

use serde_json::Value;

use crate::call_json::{decode_arguments, excerpt, ScanBudget};
use crate::types::ToolCall;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    CallTool(ToolCall),
    FinalAnswer(String),
}

/// Reads the first JSON object with an `"action"` key in `text`.
pub fn parse_action(text: &str) -> Result<Action, String> {
    let mut at = 0;
    let mut saw_object = false;
    let mut budget = ScanBudget::new(text);
    while let Some(offset) = memchr::memchr(b'{', &text.as_bytes()[at..]) {
        let start = at + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..])
            .into_iter::<&serde_json::value::RawValue>();
        let raw = match stream.next() {
            Some(Ok(raw)) => raw,
            Some(Err(error)) if !budget.charge(start, &error) => break,
            _ => {
                at = start + 1;
                continue;
            }
        };
        at = start + stream.byte_offset();
        saw_object = true;
        let Ok(Value::Object(object)) = serde_json::from_str::<Value>(raw.get()) else {
            continue;
        };
        let Some(action) = object.get("action") else {
            continue;
        };
        return match action.as_str() {
            Some("call_tool") => {
                let tool = object
                    .get("tool")
                    .and_then(Value::as_str)
                    .ok_or("a call_tool action needs a string \"tool\"")?;
                let arguments = match object.get("arguments") {
                    Some(v) => decode_arguments(&v.to_string())?,
                    None => (Value::Object(Default::default()), "{}".to_string()),
                };
                Ok(Action::CallTool(ToolCall {
                    index: 0,
                    id: None,
                    name: tool.to_string(),
                    arguments: arguments.0,
                    arguments_raw: arguments.1,
                }))
            }
            Some("final_answer") => match object.get("answer") {
                Some(Value::String(answer)) => Ok(Action::FinalAnswer(answer.clone())),
                Some(other) => Ok(Action::FinalAnswer(other.to_string())),
                None => Err("a final_answer action needs an \"answer\"".into()),
            },
            _ => Err(format!(
                "unknown action {action}: use \"call_tool\" or \"final_answer\""
            )),
        };
    }
    Err(if saw_object {
        "no JSON object with an \"action\" key was found".into()
    } else {
        format!(
            "the reply is not a JSON action object: {}",
            excerpt(text.trim())
        )
    })
}
