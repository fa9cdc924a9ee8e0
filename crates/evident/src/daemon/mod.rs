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

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use evident_index::{Index, WalkMemory};

use crate::cli::{DaemonAction, DaemonRunArgs};
use crate::commands::query_root;

pub use client::answer_through_daemon;

/// The socket a repository's daemon listens on.
pub fn socket_path(root: &Path) -> PathBuf {
    root.join(".evident").join("daemon.sock")
}

fn log_path(root: &Path) -> PathBuf {
    root.join(".evident").join("daemon.log")
}

fn lock_path(root: &Path) -> PathBuf {
    root.join(".evident").join("daemon.lock")
}

thread_local! {
    /// The index the daemon vouches is current, while it runs a request.
    static RESIDENT: RefCell<Option<(PathBuf, Rc<Index>)>> = const { RefCell::new(None) };
}

/// The daemon's open index for `root`, while it answers a request and
/// knows no file changed since the index was brought up to date.
pub fn resident_index(root: &Path) -> Option<Rc<Index>> {
    RESIDENT.with(|r| {
        let resident = r.borrow();
        let (held, index) = resident.as_ref()?;
        let root = root.canonicalize().ok()?;
        (root == *held).then(|| index.clone())
    })
}

thread_local! {
    /// The daemon's memory of its last walk, while it runs `evident index`.
    static WALK_MEMORY: RefCell<Option<Arc<Mutex<WalkMemory>>>> = const { RefCell::new(None) };
}

/// The walk memory an index run in the daemon starts from; `None` elsewhere.
pub fn walk_memory() -> Option<Arc<Mutex<WalkMemory>>> {
    WALK_MEMORY.with(|m| m.borrow().clone())
}

fn with_walk_memory<T>(memory: Option<Arc<Mutex<WalkMemory>>>, command: impl FnOnce() -> T) -> T {
    WALK_MEMORY.with(|m| *m.borrow_mut() = memory);
    let result = command();
    WALK_MEMORY.with(|m| *m.borrow_mut() = None);
    result
}

/// Runs `command` with `index` as the resident index of `root`.
fn with_resident<T>(root: &Path, index: Option<Rc<Index>>, command: impl FnOnce() -> T) -> T {
    RESIDENT.with(|r| *r.borrow_mut() = index.map(|i| (root.to_path_buf(), i)));
    let result = command();
    RESIDENT.with(|r| *r.borrow_mut() = None);
    result
}

/// `args` as `daemon run` options (what a replacement is started with).
fn run_args(args: &DaemonRunArgs) -> Vec<String> {
    let mut out = vec!["--idle-timeout".to_string(), args.idle_timeout.to_string()];
    if args.no_embed {
        out.push("--no-embed".into());
    }
    out
}

/// `evident daemon start|run|stop|status`.
pub fn command(repo: &Option<PathBuf>, json: bool, action: DaemonAction) -> Result<ExitCode> {
    let root = query_root(repo)?.canonicalize()?;
    match action {
        DaemonAction::Run(args) => server::run(&root, &args),
        DaemonAction::Start(args) => client::start(&root, &args),
        DaemonAction::Stop => client::stop(&root),
        DaemonAction::Status => client::status(&root, json),
    }
}
