//! `evident daemon`: one resident process per repository, over a Unix
//! socket under `.evident/`. It holds the index open, watches the files, and
//! brings the index up to date when they change, so a query command it
//! answers skips the stat walk and the open. Query commands ask it when one
//! runs and answer in their own process when none does; either way the same
//! command code prints the same bytes (`console.rs`).
//!
//! It owns the socket, the watcher and the request loop. It must not answer
//! differently from a one-shot command: it refuses a client of another build
//! (and stops) or with other settings in its environment, and the client
//! then answers itself.

mod client;
mod protocol;
mod server;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::DaemonAction;
use crate::commands::query_root;

pub use client::answer_through_daemon;
pub use protocol::Execute;

/// `evident daemon start|run|stop|status`.
pub fn command(
    repo: &Option<PathBuf>,
    json: bool,
    action: DaemonAction,
    execute: Execute,
) -> Result<ExitCode> {
    let root = query_root(repo)?.canonicalize()?;
    match action {
        DaemonAction::Run(args) => server::run(&root, &args, execute),
        DaemonAction::Start(args) => client::start(&root, &args),
        DaemonAction::Stop => client::stop(&root),
        DaemonAction::Status => client::status(&root, json),
    }
}
