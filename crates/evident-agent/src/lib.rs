//! The guarded agent: the registry of read-only tools, strict validation of
//! every call a model proposes, output budgets, skills, grounded-citation
//! checks, the session state machine that ties them to a model, and the one
//! search service (embedding, BM25 fallback, rerank) every door uses, and
//! what a long-running door (MCP, the web page, the daemon) needs to keep
//! the index fresh: the `Refresher`, its `Log`, and the file `Watch`.
//!
//! The principal type is [`Session`]: built from a model client, the
//! [`Registry`] of tools (`Registry::read_only(&[])`) and a [`ToolContext`]
//! (`ToolContext::plain(root)`), each `session.ask(question, &mut
//! NonInteractive, &mut |event| ...)` returns an [`Outcome`] whose answer
//! cites evidence checked against the index. Every search goes through
//! [`SearchService`].
//!
//! This crate owns what a model may do and in what order. It must not hold a
//! tool that writes, executes or reaches the network, must not run a call
//! that failed validation or was denied, and must never drop a call without
//! answering it. It talks to models only through `evident-llm` and to the
//! repository only through `evident-index`.

pub mod budget;
pub mod facts;
pub mod grounding;
pub mod intent;
pub mod link;
pub mod prefetch;
pub mod refresh;
pub mod registry;
pub mod render;
pub mod rerank;
pub mod search;
pub mod session;
pub mod skills;
pub mod strict_json;
pub mod tools;
pub mod watch;

pub use grounding::{Citation, Support};
pub use refresh::{stale_note, Freshness, Log, ProgressSink, Refresher};
pub use registry::{Registry, RegistryError, Rejection};
pub use rerank::Reranker;
pub use search::{EmbedderHandle, SearchAnswer, SearchError, SearchService};
pub use session::{
    AgentEvent, AnsweredBy, Approver, Decision, FinishReason, Limits, NonInteractive, Outcome,
    Session, SessionError, Stats,
};
pub use skills::{discover as discover_skills, Skill};
pub use tools::{Approval, Tool, ToolContext, ToolError, ToolOutput};
