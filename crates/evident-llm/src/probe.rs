//! A connection and protocol check (`evident probe`): one tool question under
//! a protocol, and whether the model answered it with the right call. It says
//! which protocols a model can use; it runs nothing the model asks for.

use std::time::Instant;

use serde_json::json;

use crate::client::{run_turn, ChatClient, ChatRequest};
use crate::error::LlmError;
use crate::http::CancelToken;
use crate::protocol::Protocol;
use crate::types::{Message, ToolSchema, Usage};

/// What one protocol gave.
#[derive(Debug)]
pub struct ProbeResult {
    pub protocol: Protocol,
    /// The model called `find_symbol` for `get_collection_name`.
    pub ok: bool,
    pub seconds: f64,
    /// The call it made, the wrong call, what could not be read, or what it said instead.
    pub detail: String,
    pub usage: Usage,
    /// The request failed (`detail` says so too).
    pub error: Option<LlmError>,
}

/// Asks "Where is the function get_collection_name defined?" with one tool,
/// `find_symbol`, under `protocol`.
pub fn probe(
    client: &dyn ChatClient,
    model: &str,
    protocol: Protocol,
    cancel: &CancelToken,
) -> ProbeResult {
    let tool = ToolSchema {
        name: "find_symbol".into(),
        description:
            "Find where a function, class or variable is defined in the repository, by its name."
                .into(),
        parameters: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    };
    let request = ChatRequest {
        model: model.to_string(),
        messages: vec![
            Message::system("You are a code assistant. You answer using tools."),
            Message::user("Where is the function get_collection_name defined?"),
        ],
        tools: vec![tool],
        protocol,
        temperature: Some(0.0),
        max_tokens: Some(200),
        ..Default::default()
    };
    let started = Instant::now();
    let outcome = run_turn(client, &request, cancel, &mut |_| {});
    let seconds = started.elapsed().as_secs_f64();
    let reply = match outcome {
        Ok(reply) => reply,
        Err(e) => {
            return ProbeResult {
                protocol,
                ok: false,
                seconds,
                detail: format!("error: {}", e.error),
                usage: Usage::default(),
                error: Some(e.error),
            }
        }
    };
    let good = reply.tool_calls.iter().find(|c| {
        c.name == "find_symbol"
            && c.arguments["name"]
                .as_str()
                .is_some_and(|n| n.contains("get_collection_name"))
    });
    let detail = match (
        good,
        reply.tool_calls.first(),
        reply.protocol_errors.first(),
    ) {
        (Some(call), _, _) => format!("{}({})", call.name, call.arguments),
        (None, Some(call), _) => format!("wrong call {}({})", call.name, call.arguments),
        (None, None, Some(error)) => format!("unreadable: {}", error.message),
        (None, None, None) => format!("no call; answered {:?}", truncate(&reply.content, 60)),
    };
    ProbeResult {
        protocol,
        ok: good.is_some(),
        seconds,
        detail,
        usage: reply.usage,
        error: None,
    }
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
