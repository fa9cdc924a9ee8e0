//! What every tool is: its trait, the context it runs in, its output and
//! its errors, and when it needs a person's yes.

use std::path::PathBuf;

use evident_index::Evidence;
use serde_json::{Map, Value};

use crate::search::{SearchError, SearchService};
use crate::skills::Skill;

/// When a call needs a person's yes before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    /// Runs without asking (every built-in tool reads only).
    Auto,
    /// Asks first (per policy: `[agent] approve = [...]`, `--approve TOOL`).
    Ask,
}

/// What a tool needs to run: the repository, the search service (the same
/// one the CLI uses), and the skills.
pub struct ToolContext {
    pub root: PathBuf,
    pub search: SearchService,
    pub skills: Vec<Skill>,
}

impl ToolContext {
    /// Full-text search only, no skills: what tests and plain uses need.
    pub fn plain(root: impl Into<PathBuf>) -> ToolContext {
        ToolContext {
            root: root.into(),
            search: SearchService::without_embedder("no embedding model is configured"),
            skills: Vec::new(),
        }
    }
}

/// Why a tool gave no result. Typed, so each door (the session, MCP) decides
/// how to say it; the message is what the caller is told.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments make no sense together, or name nothing there is.
    #[error("{0}")]
    Arguments(String),
    /// The index refused or failed (an unknown symbol, a path it will not read, …).
    #[error(transparent)]
    Index(#[from] evident_index::Error),
    /// The tool panicked (a bug; the session and the server carry on).
    #[error("the tool failed unexpectedly{0}")]
    Panicked(String),
}

impl From<SearchError> for ToolError {
    fn from(error: SearchError) -> ToolError {
        match error {
            SearchError::Index(e) => ToolError::Index(e),
            other => ToolError::Arguments(other.to_string()),
        }
    }
}

/// A tool's result: evidence, and a line saying what it means.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    pub summary: String,
    pub evidence: Vec<Evidence>,
    /// The evidence is what was asked to be read (lines, a section, a skill):
    /// the model gets it whole, not shortened.
    pub whole: bool,
}

/// One tool a model can call.
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// JSON Schema (draft 2020-12) of the arguments object.
    fn schema(&self) -> Value;
    /// Arguments that name repository paths, checked by the sandbox before the tool runs.
    fn path_arguments(&self) -> &'static [&'static str] {
        &[]
    }
    fn default_approval(&self) -> Approval {
        Approval::Auto
    }
    /// Whether only evident's own agent offers the tool (skills are its
    /// prompts), not other agents over MCP.
    fn agent_only(&self) -> bool {
        false
    }
    /// Runs the validated call. Errors are messages for the model.
    fn run(
        &self,
        context: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Result<ToolOutput, ToolError>;
}
