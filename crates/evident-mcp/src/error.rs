//! Why the server stops.

/// Failures that stop the server (a bad request never does).
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the MCP server: {0}")]
    Setup(String),
    #[error("cannot start the MCP server: {0}")]
    Registry(#[from] evident_agent::RegistryError),
    #[error("the MCP session failed: {0}")]
    Session(String),
}
