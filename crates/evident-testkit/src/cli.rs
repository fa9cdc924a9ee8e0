//! Runs the `evident` binary the way a test needs it: hermetic. The child gets
//! a cleared environment (so a developer's `EVIDENT_*`, `OPENAI_*` or
//! `OLLAMA_*` settings cannot change an answer), a private empty HOME (so no
//! user config is read), and only what it needs to run: PATH, TMPDIR, and
//! where the provisioned embedding model lives.
//!
//! A test passes its binary in, since only the test crate knows it:
//! `cli::run(env!("CARGO_BIN_EXE_evident"), dir, &["status"])`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The private HOME every run shares: an empty directory made once per test
/// process (a static is never dropped, so the empty directory stays in the
/// system's temporary directory after the process ends).
pub fn home() -> &'static Path {
    static HOME: OnceLock<tempfile::TempDir> = OnceLock::new();
    HOME.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// Where the built-in embedder's model is provisioned (a resource, not a setting).
fn model_cache() -> Option<PathBuf> {
    std::env::var_os("EVIDENT_MODEL_CACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/evident/models")))
}

/// A hermetic command for `bin` in `dir`; add arguments and environment to it.
pub fn command(bin: &str, dir: &Path) -> Command {
    let mut cmd = hermetic(bin);
    cmd.current_dir(dir);
    cmd
}

/// A hermetic command for `bin` (in the test's working directory).
pub fn hermetic(bin: &str) -> Command {
    let mut cmd = Command::new(bin);
    cmd.env_clear().env("HOME", home());
    for keep in ["PATH", "TMPDIR", "LANG", "LC_ALL"] {
        if let Some(value) = std::env::var_os(keep) {
            cmd.env(keep, value);
        }
    }
    if let Some(cache) = model_cache() {
        cmd.env("EVIDENT_MODEL_CACHE", cache);
    }
    // No test downloads a model unless it asks to (`env_remove`).
    cmd.env("EVIDENT_FETCH_MODELS", "0");
    cmd
}

/// Runs `bin args` in `dir` and returns what it printed.
pub fn run(bin: &str, dir: &Path, args: &[&str]) -> Output {
    command(bin, dir).args(args).output().unwrap()
}

/// Runs `bin args` in `dir` with `stdin` as its input.
pub fn run_with_stdin(bin: &str, dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = command(bin, dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The output's stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The output's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
