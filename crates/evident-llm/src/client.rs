//! The [`ChatClient`] abstraction and [`run_turn`], which drives one model
//! turn through a client under a protocol.

use serde_json::Value;

use crate::error::LlmError;
use crate::http::CancelToken;
use crate::protocol::{prepare_messages, Event, Protocol, ReplyAssembler, WireEvent};
use crate::repetition::{self, RepetitionGuard};
use crate::types::{Message, Reply, ToolSchema};

/// One turn's request, as the caller sees it.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSchema>,
    pub protocol: Protocol,
    /// Ask a thinking model to think (`None`: the server's default).
    pub think: Option<bool>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<u64>,
    /// A JSON Schema the plain answer must match (a reply that is data, not
    /// prose or tool calls); the server constrains decoding to it.
    pub answer_schema: Option<Value>,
}

/// A request shaped for the wire: the protocol's instructions are in the
/// messages, tools are present only when sent natively.
#[derive(Debug, Clone)]
pub struct WireRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSchema>,
    /// A JSON Schema the reply must match (constrained decoding).
    pub response_schema: Option<Value>,
    pub think: Option<bool>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<u64>,
}

impl WireRequest {
    pub fn from_chat(request: &ChatRequest) -> Self {
        let protocol = request.protocol;
        WireRequest {
            model: request.model.clone(),
            messages: prepare_messages(protocol, &request.messages, &request.tools),
            tools: if protocol.sends_native_tools() {
                request.tools.clone()
            } else {
                Vec::new()
            },
            response_schema: request
                .answer_schema
                .clone()
                .or_else(|| protocol.response_schema(&request.tools)),
            think: request.think,
            temperature: request.temperature,
            max_tokens: request.max_tokens,
            seed: request.seed,
        }
    }
}

/// A reply being streamed.
pub trait WireStream {
    /// The next event; `Ok(None)` once the server said it was done.
    fn next_event(&mut self) -> Result<Option<WireEvent>, LlmError>;
}

/// A model server.
pub trait ChatClient: Send + Sync {
    /// Sends `request` and returns its reply as a stream of events.
    fn stream<'a>(
        &'a self,
        request: &WireRequest,
        cancel: &CancelToken,
    ) -> Result<Box<dyn WireStream + 'a>, LlmError>;
    /// Embeds each input; one vector per input, in order.
    fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError>;
    /// Where the server is, for messages.
    fn endpoint(&self) -> String;
}

/// A turn that failed; `partial` holds what arrived before the failure.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct TurnError {
    #[source]
    pub error: LlmError,
    pub partial: Box<Reply>,
}

/// Runs one model turn: sends the request, streams events to `sink` as they
/// come, and returns the whole reply.
pub fn run_turn(
    client: &dyn ChatClient,
    request: &ChatRequest,
    cancel: &CancelToken,
    sink: &mut dyn FnMut(Event),
) -> Result<Reply, TurnError> {
    let wire = WireRequest::from_chat(request);
    let mut assembler = ReplyAssembler::new(request.protocol, &request.tools, false);
    let mut stream = match client.stream(&wire, cancel) {
        Ok(stream) => stream,
        Err(error) => {
            return Err(TurnError {
                error,
                partial: Box::default(),
            })
        }
    };
    let mut guard = RepetitionGuard::default();
    loop {
        match stream.next_event() {
            Ok(Some(event)) => {
                let looping = matches!(&event, WireEvent::Content(text) if guard.feed(text));
                assembler.push(event, sink);
                if looping {
                    // Dropping the stream closes the connection, which stops the server generating.
                    drop(stream);
                    let mut reply = assembler.finish(sink);
                    repetition::cut_loop(&mut reply.content);
                    repetition::cut_loop(&mut reply.raw);
                    reply.cut_looping = true;
                    return Ok(reply);
                }
            }
            Ok(None) => return Ok(assembler.finish(sink)),
            Err(error) => {
                let partial = assembler.finish(&mut |_| {});
                return Err(TurnError {
                    error,
                    partial: Box::new(partial),
                });
            }
        }
    }
}
