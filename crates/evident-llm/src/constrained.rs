//! Constrained JSON: the server is made to answer with exactly
//! `{"tool_call": {"name": <a tool>, "arguments": {...}}}` or
//! `{"response": "..."}`, by a JSON Schema in the request (`format` for
//! Ollama, `response_format` for OpenAI-compatible servers, which llama.cpp
//! turns into a grammar). This is what makes 0.5B-1.5B models usable.

use serde_json::{json, Value};

use crate::call_json::{decode_arguments, excerpt};
use crate::types::{ToolCall, ToolSchema};

/// The schema a reply must match: one branch per tool (its name as a constant
/// and its own argument schema), and one for a final answer.
pub fn response_schema(tools: &[ToolSchema]) -> Value {
    let calls: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"const": tool.name},
                    "arguments": tool.parameters,
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    let mut branches = vec![json!({
        "type": "object",
        "properties": {"response": {"type": "string"}},
        "required": ["response"],
        "additionalProperties": false,
    })];
    if !calls.is_empty() {
        branches.insert(
            0,
            json!({
                "type": "object",
                "properties": {"tool_call": {"anyOf": calls}},
                "required": ["tool_call"],
                "additionalProperties": false,
            }),
        );
    }
    json!({"anyOf": branches})
}

/// What a constrained reply said.
#[derive(Debug, Clone, PartialEq)]
pub enum Constrained {
    Call(ToolCall),
    Response(String),
}

pub fn parse_constrained(text: &str) -> Result<Constrained, String> {
    let value: Value = serde_json::from_str(text.trim()).map_err(|e| {
        format!(
            "the reply is not the required JSON object ({e}): {}",
            excerpt(text.trim())
        )
    })?;
    if let Some(call) = value.get("tool_call") {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .ok_or("\"tool_call\" needs a string \"name\"")?;
        let (arguments, arguments_raw) = match call.get("arguments") {
            Some(args) => decode_arguments(&args.to_string())?,
            None => return Err("\"tool_call\" needs \"arguments\"".into()),
        };
        return Ok(Constrained::Call(ToolCall {
            index: 0,
            id: None,
            name: name.to_string(),
            arguments,
            arguments_raw,
        }));
    }
    match value.get("response") {
        Some(Value::String(text)) => Ok(Constrained::Response(text.clone())),
        _ => Err(format!(
            "expected {{\"tool_call\": ...}} or {{\"response\": ...}}, got {}",
            excerpt(text.trim())
        )),
    }
}
