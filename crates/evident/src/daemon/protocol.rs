//! What client and daemon share: where the socket is, and what they say to
//! each other, one JSON line each way per connection (serde_json over a
//! Unix socket; no framing of our own).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::{Deserialize, Serialize};

use crate::cli::DaemonRunArgs;

/// A request, with the build of the evident that sends it: a daemon of
/// another build refuses it and stops, so that a rebuilt evident never gets
/// answers from old code.
#[derive(Serialize, Deserialize)]
pub struct Request {
    pub build: String,
    #[serde(flatten)]
    pub ask: Ask,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum Ask {
    /// Run this command line as if in `cwd`, and send back what it printed.
    Command {
        root: String,
        cwd: String,
        /// The variables that can change what a command prints ([`forwarded_env`]).
        env: Vec<(String, String)>,
        args: Vec<String>,
    },
    Status,
    Stop,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    Output {
        stdout: String,
        stderr: String,
        code: u8,
    },
    /// Not answered here: the client answers in its own process, and starts
    /// a daemon of its own build when `replace` is set.
    Refused {
        reason: String,
        replace: bool,
        /// The refusing daemon's `daemon run` options, for its replacement.
        #[serde(default)]
        run_args: Vec<String>,
    },
    Status(DaemonStatus),
    Stopping,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct DaemonStatus {
    pub pid: u32,
    pub root: String,
    pub build: String,
    pub started_at: u64,
    pub idle_timeout_s: u64,
    /// Whether the daemon's index runs skip embedding (`--no-embed`).
    pub no_embed: bool,
    /// Whether file events are watched; without them every request checks
    /// the files' stat data first, as a one-shot command does.
    pub watching: bool,
    pub requests: u64,
    /// Index runs the daemon made because files changed.
    pub updates: u64,
    /// Requests for which the watcher did not confirm in time that it had
    /// noted every earlier change (they checked the files' stat data).
    #[serde(default)]
    pub unconfirmed: u64,
}

/// This executable: its version, path, size and modification time. Another
/// build (a rebuild in place included) has another identity.
pub fn build_identity() -> String {
    let exe = std::env::current_exe().unwrap_or_default();
    let (len, modified) = std::fs::metadata(&exe)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            (m.len(), modified)
        })
        .unwrap_or_default();
    format!(
        "{} {} {len} {modified}",
        env!("CARGO_PKG_VERSION"),
        exe.display()
    )
}

/// The environment a command's output can depend on (settings, model
/// servers, caches, profiling): a daemon answers only a client whose
/// variables equal its own.
pub fn forwarded_env() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| {
            ["EVIDENT_", "OLLAMA_", "OPENAI_"]
                .iter()
                .any(|prefix| k.starts_with(prefix))
                // Not the session's own (`XDG_SESSION_ID`, `XDG_RUNTIME_DIR`):
                // another terminal may ask the same daemon.
                || ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"].contains(&k.as_str())
        })
        .filter(|(k, _)| k != "EVIDENT_NO_DAEMON" && k != "EVIDENT_DAEMON")
        .collect();
    env.sort();
    env
}

/// The socket a repository's daemon listens on.
pub fn socket_path(root: &Path) -> PathBuf {
    root.join(".evident").join("daemon.sock")
}

pub fn log_path(root: &Path) -> PathBuf {
    root.join(".evident").join("daemon.log")
}

pub fn lock_path(root: &Path) -> PathBuf {
    root.join(".evident").join("daemon.lock")
}

/// Whether a daemon process lives for `root`: one holds the lock from
/// before it listens until it exits, so a socket that refuses while the
/// lock is held belongs to a daemon still starting, not a dead one.
pub fn daemon_lives(root: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let Ok(file) = std::fs::File::open(lock_path(root)) else {
        return false;
    };
    // SAFETY: flock on a descriptor this function owns; closing it unlocks.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) != 0 }
}

/// Runs a parsed command line to its exit code, printing through the
/// console: `main`'s own dispatch, handed in so the daemon runs the very
/// same code.
pub type Execute = fn(crate::cli::Cli) -> ExitCode;

/// `args` as `daemon run` options (what a replacement is started with).
pub fn run_args(args: &DaemonRunArgs) -> Vec<String> {
    let mut out = vec!["--idle-timeout".to_string(), args.idle_timeout.to_string()];
    if args.no_embed {
        out.push("--no-embed".into());
    }
    out
}
