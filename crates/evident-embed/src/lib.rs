//! The built-in embedders, so semantic search works with no model server:
//! - [`LocalEmbedder`]: a sentence-transformers model of the BERT family
//!   (all-MiniLM-L6-v2, bge-small, …) run on the CPU with candle, from a local
//!   directory holding `config.json`, `tokenizer.json` and `model.safetensors`
//!   (and optionally `1_Pooling/config.json`). Good vectors, about 25 chunks/s.
//! - [`StaticEmbedder`], the default: a table of token vectors distilled once
//!   from such a model (`static_model`), thousands of chunks a second.
//!
//! The principal type is [`StaticEmbedder`]: texts in, unit vectors out.
//!
//! ```no_run
//! let embedder = evident_embed::StaticEmbedder::load(std::path::Path::new("model.static"))?;
//! let vectors = embedder.embed(&["parse the config file".to_string()])?;
//! assert_eq!(vectors[0].len(), evident_embed::STATIC_DIMENSIONS);
//! # Ok::<(), evident_embed::EmbedError>(())
//! ```
//!
//! This crate owns loading and checking those files, tokenising, the forward
//! pass, pooling, distilling and normalisation. It must not fetch anything (the model
//! files come from `scripts/fetch-embed-model.sh` or the user), and it knows
//! nothing of indexes or chunks: texts in, unit vectors out.

use std::path::{Path, PathBuf};

mod bert;
mod fetch;
mod files;
mod static_model;

pub use bert::{LocalEmbedder, Pooling, DEFAULT_MAX_TOKENS};
pub use fetch::{fetch_teacher_once, is_fetched};
pub use files::{EmbedError, Result, REQUIRED_FILES};
pub use static_model::{
    distill, distill_once, is_static_model, static_dir_for, StaticEmbedder, STATIC_DIMENSIONS,
};

/// Where `scripts/fetch-embed-model.sh` puts all-MiniLM-L6-v2:
/// `$EVIDENT_MODEL_CACHE/all-MiniLM-L6-v2`, else `~/.cache/evident/models/all-MiniLM-L6-v2`.
pub fn default_model_dir() -> Option<PathBuf> {
    let cache = match std::env::var_os("EVIDENT_MODEL_CACHE").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(&std::env::var_os("HOME")?).join(".cache/evident/models"),
    };
    Some(cache.join("all-MiniLM-L6-v2"))
}
