//! Typed errors of talking to a model server.

use std::time::Duration;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the connection.
    Connect,
    /// Waiting for the first byte of the reply (the model loading and reading the prompt).
    FirstToken,
    /// Waiting for the next piece of a reply that had started.
    Idle,
}

impl std::fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connecting",
            TimeoutPhase::FirstToken => "waiting for the first token",
            TimeoutPhase::Idle => "waiting for the stream to continue",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("no model server is answering at {url}: {hint}")]
    ServerNotRunning { url: String, hint: String },
    #[error("model {model:?} not found on the server: {hint}")]
    ModelNotFound { model: String, hint: String },
    #[error("the conversation does not fit the model's context: {message} (shorten the question or raise the context length)")]
    ContextOverflow { message: String },
    #[error("the server answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("timed out after {after:?} {phase}")]
    Timeout {
        phase: TimeoutPhase,
        after: Duration,
    },
    #[error("the stream ended before the server said it was done ({bytes} bytes, {lines} messages received; what arrived is kept)")]
    StreamCut { bytes: u64, lines: u64 },
    #[error("the server's reply passed {limit} bytes ({what}); it was cut there and what arrived is kept")]
    TooLarge { what: &'static str, limit: u64 },
    #[error("message {line} of the stream is not valid JSON ({error}): {excerpt}")]
    InvalidStream {
        line: u64,
        excerpt: String,
        error: String,
    },
    #[error("the server reported an error mid-stream: {message}")]
    Server { message: String },
    #[error("cancelled")]
    Cancelled,
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("transport error talking to {url}: {message}")]
    Transport { url: String, message: String },
}

/// What kind of failure an [`LlmError`] is, for a caller that acts on it (a
/// hint, an exit code) without reading its wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmErrorKind {
    ServerNotRunning,
    ModelNotFound,
    ContextOverflow,
    Http,
    Timeout,
    StreamCut,
    TooLarge,
    InvalidStream,
    Server,
    Cancelled,
    Config,
    Transport,
}

impl LlmError {
    pub fn kind(&self) -> LlmErrorKind {
        match self {
            LlmError::ServerNotRunning { .. } => LlmErrorKind::ServerNotRunning,
            LlmError::ModelNotFound { .. } => LlmErrorKind::ModelNotFound,
            LlmError::ContextOverflow { .. } => LlmErrorKind::ContextOverflow,
            LlmError::Http { .. } => LlmErrorKind::Http,
            LlmError::Timeout { .. } => LlmErrorKind::Timeout,
            LlmError::StreamCut { .. } => LlmErrorKind::StreamCut,
            LlmError::TooLarge { .. } => LlmErrorKind::TooLarge,
            LlmError::InvalidStream { .. } => LlmErrorKind::InvalidStream,
            LlmError::Server { .. } => LlmErrorKind::Server,
            LlmError::Cancelled => LlmErrorKind::Cancelled,
            LlmError::Config(_) => LlmErrorKind::Config,
            LlmError::Transport { .. } => LlmErrorKind::Transport,
        }
    }

    /// Whether trying the same request again may help (connection trouble, 5xx).
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::ServerNotRunning { .. } | LlmError::Transport { .. } => true,
            LlmError::Timeout { phase, .. } => *phase == TimeoutPhase::Connect,
            LlmError::Http { status, .. } => *status >= 500,
            _ => false,
        }
    }
}
