//! How tool calls travel between us and a model: natively in the server's
//! `tool_calls`, or as text in one of the text protocols. This module turns a
//! stream of wire events into [`Event`]s and a final [`Reply`], whatever the
//! protocol, and builds the protocol's side of the request (instructions,
//! response schema, history messages).

use std::str::FromStr;

use serde_json::Value;

use crate::action::{parse_action, Action};
use crate::constrained::{parse_constrained, response_schema, Constrained};
use crate::hermes::{HermesSplitter, Piece};
use crate::recover::recover_calls;
use crate::types::{Message, ProtocolError, Reply, Role, ToolCall, ToolSchema, Usage};

/// The tool-call protocol of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// Tools sent natively; calls taken from `tool_calls` when the server
    /// returns them, recovered from `<tool_call>` blocks or JSON in the text otherwise.
    #[default]
    Auto,
    /// Native `tool_calls` only; the text is the answer, as it is.
    Native,
    /// Tools described in the system prompt; calls in `<tool_call>` blocks (Hermes/Qwen).
    Hermes,
    /// One JSON object per reply: `{"action": "call_tool" | "final_answer", ...}`.
    JsonAction,
    /// The server is held to a JSON Schema: `{"tool_call": ...}` or `{"response": ...}`.
    Constrained,
}

impl Protocol {
    pub const ALL: [Protocol; 5] = [
        Protocol::Auto,
        Protocol::Native,
        Protocol::Hermes,
        Protocol::JsonAction,
        Protocol::Constrained,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Auto => "auto",
            Protocol::Native => "native",
            Protocol::Hermes => "hermes",
            Protocol::JsonAction => "json-action",
            Protocol::Constrained => "constrained",
        }
    }

    /// Whether tool schemas go in the request's `tools` field.
    pub fn sends_native_tools(self) -> bool {
        matches!(self, Protocol::Auto | Protocol::Native)
    }

    /// The JSON Schema the server must hold the reply to, if any.
    pub fn response_schema(self, tools: &[ToolSchema]) -> Option<Value> {
        (self == Protocol::Constrained).then(|| response_schema(tools))
    }

    /// What the system prompt must add so the model knows how to call tools.
    pub fn instructions(self, tools: &[ToolSchema]) -> Option<String> {
        if tools.is_empty() {
            return None;
        }
        let listing = |style: &dyn Fn(&ToolSchema) -> String| {
            tools.iter().map(style).collect::<Vec<_>>().join("\n")
        };
        match self {
            Protocol::Auto | Protocol::Native => None,
            Protocol::Hermes => Some(format!(
                "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
                 You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\n\
                 For each function call, return a json object with function name and arguments within \
                 <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>",
                listing(&|t| serde_json::json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}).to_string())
            )),
            Protocol::JsonAction => Some(format!(
                "You can use these tools:\n{}\n\nReply with exactly one JSON object and nothing else. To call a tool:\n\
                 {{\"action\": \"call_tool\", \"tool\": \"<tool name>\", \"arguments\": {{...}}}}\n\
                 When you have the answer:\n{{\"action\": \"final_answer\", \"answer\": \"<your answer>\"}}",
                listing(&|t| format!("- {}: {} Arguments (JSON Schema): {}", t.name, t.description, t.parameters))
            )),
            Protocol::Constrained => Some(format!(
                "You can use these tools:\n{}\n\nReply with one JSON object: {{\"tool_call\": {{\"name\": \"<tool name>\", \"arguments\": {{...}}}}}} \
                 to call a tool, or {{\"response\": \"<your answer>\"}} when you have the answer.",
                listing(&|t| format!("- {}: {} Arguments (JSON Schema): {}", t.name, t.description, t.parameters))
            )),
        }
    }

    /// The assistant message to keep in the history for `reply`.
    pub fn assistant_message(self, reply: &Reply) -> Message {
        if self.sends_native_tools()
            && !reply.tool_calls.is_empty()
            && reply.tool_calls.iter().all(|c| c.id.is_some())
        {
            let mut message = Message::assistant(without_empty_tools_blocks(&reply.content));
            message.tool_calls = reply.tool_calls.clone();
            return message;
        }
        Message::assistant(without_empty_tools_blocks(&reply.raw))
    }

    /// The message that carries `call`'s result back to the model.
    pub fn tool_result_message(self, call: &ToolCall, content: &str) -> Message {
        match self {
            Protocol::Auto | Protocol::Native if call.id.is_some() => {
                Message::tool_result(call, content)
            }
            Protocol::Auto | Protocol::Native | Protocol::Hermes => {
                Message::user(format!("<tool_response>\n{content}\n</tool_response>"))
            }
            Protocol::JsonAction | Protocol::Constrained => Message::user(format!(
                "Result of {}({}):\n{content}",
                call.name, call.arguments_raw
            )),
        }
    }
}

/// `text` without empty `<tools></tools>` blocks. Qwen models echo that
/// wrapper from their prompt, empty; kept in the history, it is what they
/// copy in the next reply instead of answering.
pub fn without_empty_tools_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<tools>") {
        let inner = &rest[start + "<tools>".len()..];
        match inner.find("</tools>") {
            Some(end) if inner[..end].trim().is_empty() => {
                out.push_str(&rest[..start]);
                rest = &inner[end + "</tools>".len()..];
            }
            _ => {
                out.push_str(&rest[..start + "<tools>".len()]);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    if out.trim().is_empty() {
        out.clear();
    }
    out
}

impl FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown protocol {s:?}: use one of auto, native, hermes, json-action, constrained"))
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a server's stream says, before any text protocol is applied.
#[derive(Debug, Clone, PartialEq)]
pub enum WireEvent {
    Content(String),
    Thinking(String),
    /// A native call began (OpenAI-compatible servers stream them).
    CallStarted {
        index: usize,
        name: String,
    },
    CallDelta {
        index: usize,
        text: String,
    },
    /// Native calls, complete.
    Calls(Vec<ToolCall>),
    /// A native call whose arguments could not be read.
    Malformed(ProtocolError),
    Done(Usage),
}

/// What a consumer of a turn sees, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Content(String),
    Thinking(String),
    /// A call is being written; its arguments follow as deltas.
    CallStarted {
        index: usize,
    },
    CallDelta {
        index: usize,
        text: String,
    },
    /// A complete call.
    Call(ToolCall),
    /// Output that looked like a call but could not be read.
    ProtocolError(ProtocolError),
    Done(Usage),
}

/// Turns wire events into events and a reply, applying the protocol.
pub struct ReplyAssembler {
    protocol: Protocol,
    known_tools: Vec<String>,
    splitter: Option<HermesSplitter>,
    /// Text is held back (not shown) until the reply ends.
    holding: Option<bool>,
    held: String,
    reply: Reply,
}

impl ReplyAssembler {
    /// `think`: the text starts inside reasoning (models that omit `<think>`).
    pub fn new(protocol: Protocol, tools: &[ToolSchema], think: bool) -> Self {
        let splitter = matches!(protocol, Protocol::Auto | Protocol::Hermes)
            .then(|| HermesSplitter::new(think));
        // Whole-reply protocols hold everything; native never holds; the others decide on the first text.
        let holding = match protocol {
            Protocol::JsonAction | Protocol::Constrained => Some(true),
            Protocol::Native => Some(false),
            Protocol::Auto | Protocol::Hermes => None,
        };
        ReplyAssembler {
            protocol,
            known_tools: tools.iter().map(|t| t.name.clone()).collect(),
            splitter,
            holding,
            held: String::new(),
            reply: Reply::default(),
        }
    }

    pub fn push(&mut self, event: WireEvent, sink: &mut dyn FnMut(Event)) {
        match event {
            WireEvent::Content(text) => {
                self.reply.raw.push_str(&text);
                match self.splitter.as_mut() {
                    Some(splitter) => {
                        let pieces = splitter.feed(&text);
                        self.pieces(pieces, sink);
                    }
                    None => self.text(text, sink),
                }
            }
            WireEvent::Thinking(text) => {
                self.reply.thinking.push_str(&text);
                sink(Event::Thinking(text));
            }
            WireEvent::CallStarted { index, .. } => sink(Event::CallStarted { index }),
            WireEvent::CallDelta { index, text } => sink(Event::CallDelta { index, text }),
            WireEvent::Calls(calls) => {
                for call in calls {
                    self.call(call, sink);
                }
            }
            WireEvent::Malformed(error) => self.error(error, sink),
            WireEvent::Done(usage) => self.reply.usage = usage,
        }
    }

    /// Ends the reply: flushes what was held, applies the protocol's final reading.
    pub fn finish(mut self, sink: &mut dyn FnMut(Event)) -> Reply {
        if let Some(splitter) = self.splitter.as_mut() {
            let pieces = splitter.finish();
            self.pieces(pieces, sink);
        }
        let text = std::mem::take(&mut self.held);
        match self.protocol {
            Protocol::Auto | Protocol::Hermes => {
                if self.reply.tool_calls.is_empty() && !self.known_tools.is_empty() {
                    let mut whole = std::mem::take(&mut self.reply.content);
                    whole.push_str(&text);
                    let recovered = recover_calls(&whole, &self.known_tools, 0);
                    for call in recovered.calls {
                        self.call(call, sink);
                    }
                    for error in recovered.errors {
                        self.error(error, sink);
                    }
                    if self.holding == Some(true) && !recovered.content.is_empty() {
                        sink(Event::Content(recovered.content.clone()));
                    }
                    self.reply.content = recovered.content;
                } else {
                    if !text.is_empty() {
                        sink(Event::Content(text.clone()));
                    }
                    self.reply.content.push_str(&text);
                }
            }
            Protocol::Native => self.reply.content.push_str(&text),
            Protocol::JsonAction => match parse_action(&text) {
                Ok(Action::CallTool(call)) => self.call(call, sink),
                Ok(Action::FinalAnswer(answer)) => self.answer(answer, sink),
                Err(message) => self.error(ProtocolError { raw: text, message }, sink),
            },
            Protocol::Constrained => match parse_constrained(&text) {
                Ok(Constrained::Call(call)) => self.call(call, sink),
                Ok(Constrained::Response(answer)) => self.answer(answer, sink),
                Err(message) => self.error(ProtocolError { raw: text, message }, sink),
            },
        }
        if self.reply.content.trim().is_empty() {
            self.reply.content.clear();
        }
        let trimmed = self.reply.thinking.trim();
        if trimmed.len() != self.reply.thinking.len() {
            self.reply.thinking = trimmed.to_string();
        }
        sink(Event::Done(self.reply.usage.clone()));
        self.reply
    }

    fn pieces(&mut self, pieces: Vec<Piece>, sink: &mut dyn FnMut(Event)) {
        for piece in pieces {
            match piece {
                Piece::Text(text) => self.text(text, sink),
                Piece::Thinking(text) => {
                    self.reply.thinking.push_str(&text);
                    sink(Event::Thinking(text));
                }
                Piece::CallStarted { index } => sink(Event::CallStarted {
                    index: self.reply.tool_calls.len().max(index),
                }),
                Piece::CallDelta { index, text } => sink(Event::CallDelta {
                    index: self.reply.tool_calls.len().max(index),
                    text,
                }),
                Piece::Call(call) => self.call(call, sink),
                Piece::Malformed(error) => self.error(error, sink),
            }
        }
    }

    fn text(&mut self, text: String, sink: &mut dyn FnMut(Event)) {
        if self.holding.is_none() {
            // A reply that opens with JSON may be a call written as text: hold it until it ends.
            match text.trim_start().chars().next() {
                None => {
                    self.held.push_str(&text);
                    return;
                }
                Some(first) => {
                    let looks_like_json =
                        (first == '{' || first == '[') && !self.known_tools.is_empty();
                    self.holding = Some(looks_like_json);
                    if !looks_like_json {
                        let leading = std::mem::take(&mut self.held);
                        self.reply.content.push_str(&leading);
                        let shown = leading + &text;
                        self.reply.content.push_str(&text);
                        sink(Event::Content(shown));
                        return;
                    }
                }
            }
        }
        if self.holding == Some(true) {
            self.held.push_str(&text);
        } else {
            self.reply.content.push_str(&text);
            sink(Event::Content(text));
        }
    }

    /// Numbers the call in the reply and, where history will carry it natively,
    /// gives it an id if the server gave none; then reports it.
    fn call(&mut self, mut call: ToolCall, sink: &mut dyn FnMut(Event)) {
        call.index = self.reply.tool_calls.len();
        if call.id.is_none() && self.protocol.sends_native_tools() {
            call.id = Some(next_call_id());
        }
        sink(Event::Call(call.clone()));
        self.reply.tool_calls.push(call);
    }

    fn answer(&mut self, answer: String, sink: &mut dyn FnMut(Event)) {
        sink(Event::Content(answer.clone()));
        self.reply.content = answer;
    }

    fn error(&mut self, error: ProtocolError, sink: &mut dyn FnMut(Event)) {
        sink(Event::ProtocolError(error.clone()));
        self.reply.protocol_errors.push(error);
    }
}

/// A process-unique id for calls the server gave none (text-protocol calls in `auto`).
fn next_call_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("call_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The messages to send for `messages` under `protocol`: the protocol's
/// instructions join the system prompt (or become one).
pub fn prepare_messages(
    protocol: Protocol,
    messages: &[Message],
    tools: &[ToolSchema],
) -> Vec<Message> {
    let mut out = messages.to_vec();
    if let Some(instructions) = protocol.instructions(tools) {
        match out.first_mut() {
            Some(first) if first.role == Role::System => {
                first.content = format!("{}\n\n{instructions}", first.content);
            }
            _ => out.insert(0, Message::system(instructions)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_tools_blocks_are_left_out_of_the_history() {
        assert_eq!(without_empty_tools_blocks("<tools>\n\n</tools>\n"), "");
        assert_eq!(
            without_empty_tools_blocks("<tools> </tools>It is in a.py:1.<tools></tools>"),
            "It is in a.py:1."
        );
        // Anything inside, or an unclosed block, is the model's and stays.
        for kept in [
            "<tools>find_symbol</tools>",
            "<tools>\n",
            "<tool_call>\n{\"name\": \"find_symbol\", \"arguments\": {}}\n</tool_call>",
        ] {
            assert_eq!(without_empty_tools_blocks(kept), kept);
        }
        let reply = Reply {
            raw: "<tools>\n</tools>\n<tool_call>{}</tool_call>".into(),
            ..Reply::default()
        };
        assert_eq!(
            Protocol::Hermes.assistant_message(&reply).content,
            "\n<tool_call>{}</tool_call>"
        );
    }
}
