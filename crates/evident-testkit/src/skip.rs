//! Tests that need a resource this machine may lack (a provisioned model, the
//! conformance cases, the Python MCP client). Without it such a test passes
//! after saying why it did nothing, unless its `EVIDENT_REQUIRE_*` variable is
//! `1` (set by `scripts/test`), when a missing resource is a failure.
//!
//! Every skip is also appended, one line each, to the file named by
//! `EVIDENT_SKIP_LOG` when it is set, so `scripts/test` can count them in its
//! summary instead of leaving them behind `--nocapture`.

use std::io::Write;

/// Records that `test` did nothing because `why`, or panics when
/// `require` (an environment variable) is `1`.
pub fn missing(require: Option<&str>, test: &str, why: &str) {
    if let Some(var) = require {
        if std::env::var(var).as_deref() == Ok("1") {
            panic!("{var}=1 but {why}");
        }
    }
    eprintln!("SKIPPED {test}: {why}");
    if let Some(log) = std::env::var_os("EVIDENT_SKIP_LOG").filter(|v| !v.is_empty()) {
        // One short line per write: O_APPEND keeps lines from parallel tests whole.
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = file.write_all(format!("{test}: {why}\n").as_bytes());
        }
    }
}

/// The built-in embedder's model directory `dir` when the model is there,
/// else `None` after recording the skip for `test`.
pub fn embed_model_or_skip(
    dir: Option<std::path::PathBuf>,
    test: &str,
) -> Option<std::path::PathBuf> {
    let why = match dir {
        Some(dir) if dir.join("model.safetensors").is_file() => return Some(dir),
        Some(dir) => format!(
            "no embedding model at {} (run scripts/fetch-embed-model.sh)",
            dir.display()
        ),
        None => "no model cache directory (HOME and EVIDENT_MODEL_CACHE are unset)".to_string(),
    };
    missing(Some("EVIDENT_REQUIRE_REAL_MODEL"), test, &why);
    None
}
