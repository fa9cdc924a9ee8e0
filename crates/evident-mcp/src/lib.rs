//! `evident-mcp` serves evident's read-only tools to other agents over the
//! Model Context Protocol (stdio, through the official `rmcp` SDK): the tool
//! definitions, validation, path sandbox and output budgets all come from
//! `evident-agent`'s registry, and this crate adds only what a long-running
//! server needs: keeping the index fresh with a cheap stat pass, serving calls
//! concurrently, and mapping failures onto the protocol.
//!
//! The principal type is [`EvidentServer`]; the shortest use is
//! `serve_stdio(options, ToolContext::plain(root))`, which serves until the
//! client closes stdin.
//!
//! It must not define, describe or validate a tool itself (there is one
//! registry), and must never write to stdout anything but protocol messages:
//! logs go to stderr or a file.

mod error;
mod server;
mod stdin;

pub use error::ServeError;
pub use server::{EvidentServer, ServerOptions, DEFAULT_MAX_OUTPUT_BYTES};

use evident_agent::ToolContext;
use rmcp::ServiceExt;

/// Serves on stdin/stdout until the client closes stdin.
pub fn serve_stdio(options: ServerOptions, context: ToolContext) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Setup(e.to_string()))?;
    runtime.block_on(async move {
        let log = options.log.clone();
        let server = EvidentServer::new(options, context)?;
        log.line("serving over stdio");
        // stdin reaches the SDK through `stdin::forward`, which answers
        // what the SDK would drop or misname and marks calls with a key
        // written twice; its answers and the SDK's share stdout line by line.
        let (to_sdk, from_stdin) = tokio::io::duplex(1 << 16);
        let (sdk_out, from_sdk) = tokio::io::duplex(1 << 16);
        let (replies, answers) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(stdin::forward(tokio::io::stdin(), to_sdk, replies));
        tokio::spawn(stdin::merge_output(from_sdk, answers, tokio::io::stdout()));
        let running = server
            .serve((from_stdin, sdk_out))
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        let reason = running
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        log.line(&format!("session ended: {reason:?}"));
        Ok(())
    })
}
