//! What a session reports as it goes: the one stream the terminal trace,
//! `--json` JSONL, MCP progress and the web page's live steps are sinks of.

use serde::Serialize;
use serde_json::Value;

use super::state::*;
use crate::grounding::Citation;
use crate::intent::{DecidedBy, Intent};

/// The one stream of what happens; the terminal trace and `--json` JSONL are two sinks of it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AgentEvent {
    ModelStarted {
        round: u32,
    },
    ModelDelta {
        text: String,
    },
    ToolProposed {
        round: u32,
        index: usize,
        name: String,
        arguments: Value,
    },
    ToolRejected {
        round: u32,
        index: usize,
        name: String,
        error: String,
    },
    ApprovalRequested {
        round: u32,
        tools: Vec<String>,
    },
    ToolApproved {
        round: u32,
        index: usize,
        name: String,
        how: String,
    },
    ToolDenied {
        round: u32,
        index: usize,
        name: String,
    },
    ToolStarted {
        round: u32,
        index: usize,
        name: String,
    },
    ToolFinished {
        round: u32,
        index: usize,
        name: String,
        summary: String,
        results: usize,
        bytes: usize,
        cut: bool,
        error: Option<String>,
        /// How long the tool itself ran (index open and query).
        ms: f64,
    },
    /// A call identical to an earlier one: not run; the model was pointed
    /// at the earlier result.
    ToolRepeated {
        round: u32,
        index: usize,
        name: String,
        /// The round of the earlier call (0: evident's own lookups before the first).
        first_round: u32,
    },
    /// evident's lookups before the first model call are done (their calls
    /// came as round 0 tool events).
    Prefetched {
        intent: Intent,
        decided_by: DecidedBy,
        /// The linked subject, as a tool is given it.
        subject: Option<String>,
        calls: usize,
    },
    /// A model call ended; the server's counts.
    ModelFinished {
        round: u32,
        prompt_tokens: Option<u64>,
        completion_tokens: Option<u64>,
        prompt_ms: Option<u64>,
        total_ms: Option<u64>,
    },
    /// The tool phase ended without an answer: one last call, tools withdrawn.
    LastCall {
        why: String,
    },
    Compacted {
        tokens_before: usize,
        tokens_after: usize,
        by: String,
    },
    /// The model began writing the same thing over and over: the reply was
    /// stopped there and the repetition cut to one copy.
    ModelLooped {
        round: u32,
    },
    Finished {
        reason: FinishReason,
        rounds: u32,
        tool_calls: usize,
        /// The whole answer, `appended` included.
        answer: String,
        /// What evident appended to the model's words (lines for what it
        /// named without one), or empty.
        appended: String,
        answered_by: AnsweredBy,
        citations: Vec<Citation>,
        unsupported: usize,
        stats: Stats,
    },
}
