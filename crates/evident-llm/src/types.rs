//! The plain, serializable types at this crate's boundary.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of a conversation, in a shape both wire formats can be built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Calls an assistant message made natively (empty for text protocols,
    /// whose calls live in `content` as the model wrote them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the tool that produced this result (Ollama's `tool_name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For `Role::Tool`: the call this answers (OpenAI's `tool_call_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }
    /// The result of `call`, to be sent after the assistant message that made it.
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_name: Some(call.name.clone()),
            tool_call_id: call.id.clone(),
        }
    }
    fn plain(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_name: None,
            tool_call_id: None,
        }
    }
}

/// A tool the model may call: a name, what it does, and a JSON Schema for its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// A complete call the model asked for. Nothing here says the call is valid:
/// validating arguments against the schema is the agent's job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Position among the calls of one reply, from 0.
    pub index: usize,
    /// The server's id for the call (OpenAI-compatible servers), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// The arguments as JSON. Arguments written as a JSON string holding an
    /// object are unwrapped to the object; any other string stays a string.
    pub arguments: Value,
    /// The arguments exactly as the model wrote them.
    pub arguments_raw: String,
}

/// Token counts and timings of one model reply, as far as the server reports them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Wall time the server spent, in milliseconds.
    pub total_ms: Option<u64>,
    /// Time spent reading the prompt, in milliseconds (llama.cpp's
    /// `prompt_ms`, Ollama's `prompt_eval_duration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_ms: Option<u64>,
    /// Time spent generating the reply, in milliseconds.
    pub eval_ms: Option<u64>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`, ...).
    pub finish_reason: Option<String>,
}

/// Something the model wrote that looked like a tool call but could not be
/// understood. Never dropped: the agent can feed `message` back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtocolError {
    /// What the model wrote, verbatim.
    pub raw: String,
    pub message: String,
}

/// Everything one model turn produced, once the stream has ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The answer text, with tool-call markup taken out.
    pub content: String,
    pub thinking: String,
    pub tool_calls: Vec<ToolCall>,
    pub protocol_errors: Vec<ProtocolError>,
    /// The assistant's output as the model produced it, to send back as history.
    pub raw: String,
    pub usage: Usage,
    /// The model began writing the same thing over and over; the stream was
    /// stopped there and the loop cut to one copy (in `content` and `raw`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_looping: bool,
}
