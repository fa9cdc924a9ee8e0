//! Talking to local model servers, and reading the tool calls models make.
//!
//! The principal type is [`ChatClient`] ([`OllamaClient`], [`OpenAiClient`]),
//! driven one turn at a time by [`run_turn`] under a [`Protocol`]:
//!
//! ```no_run
//! use evident_llm::{run_turn, CancelToken, ChatRequest, Message, OllamaClient, OllamaOptions};
//!
//! let client = OllamaClient::new(OllamaOptions::default());
//! let request = ChatRequest {
//!     model: "qwen2.5-coder:1.5b".into(),
//!     messages: vec![Message::user("Say hello.")],
//!     ..Default::default()
//! };
//! let reply = run_turn(&client, &request, &CancelToken::new(), &mut |_| {})?;
//! println!("{}", reply.content);
//! # Ok::<(), evident_llm::TurnError>(())
//! ```
//!
//! This crate owns the wire: Ollama's NDJSON `/api/chat` and OpenAI-compatible
//! SSE `/v1/chat/completions` ([`OllamaClient`], [`OpenAiClient`], both behind
//! [`ChatClient`]), embeddings, timeouts, retries and typed errors; and the
//! tool-call protocols ([`Protocol`]): native `tool_calls`, Hermes/Qwen
//! `<tool_call>` blocks read by an incremental streaming splitter
//! ([`HermesSplitter`]), calls recovered from JSON in the text, JSON actions,
//! and schema-constrained JSON. It turns any reply into the same [`Event`]s
//! and [`Reply`], and never drops what a model said: what it cannot read
//! becomes a [`ProtocolError`].
//!
//! It knows nothing of code indexes, tools' meanings or validation (the agent
//! checks every call against its schema), and it never runs anything.
//!
//! ```no_run
//! use evident_llm::{run_turn, CancelToken, ChatRequest, Message, OllamaClient, OllamaOptions};
//! let client = OllamaClient::new(OllamaOptions::default());
//! let request = ChatRequest { model: "qwen2.5-coder:1.5b".into(), messages: vec![Message::user("hi")], ..Default::default() };
//! let reply = run_turn(&client, &request, &CancelToken::new(), &mut |event| println!("{event:?}")).unwrap();
//! println!("{}", reply.content);
//! ```

mod action;
mod call_json;
mod client;
mod constrained;
mod error;
mod hermes;
mod http;
mod ollama;
mod openai;
mod probe;
mod protocol;
mod recover;
mod repetition;
mod types;

pub use action::{parse_action, Action};
pub use client::{run_turn, ChatClient, ChatRequest, TurnError, WireRequest, WireStream};
pub use constrained::{parse_constrained, response_schema, Constrained};
pub use error::{LlmError, LlmErrorKind, TimeoutPhase};
pub use hermes::{HermesSplitter, Piece, PieceRef};
pub use http::{CancelToken, HttpOptions};
pub use ollama::{normalize_host, OllamaClient, OllamaOptions};
pub use openai::{OpenAiClient, OpenAiOptions};
pub use probe::{probe, ProbeResult};
pub use protocol::{prepare_messages, Event, Protocol, ReplyAssembler, WireEvent};
pub use recover::{recover_calls, Recovered};
pub use repetition::{cut_loop, looping_tail, RepetitionGuard};
pub use types::{Message, ProtocolError, Reply, Role, ToolCall, ToolSchema, Usage};
