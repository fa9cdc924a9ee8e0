//! Walking a repository: which files are candidates for the index, and which
//! are skipped and why.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use ignore::WalkBuilder;

use crate::config::Config;
use crate::lang::{self, LanguageSpec};

/// A file that will be indexed if its content can be read.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
    pub lang: &'static LanguageSpec,
}

/// A source file left out of the index, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub rel: String,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct Walk {
    /// Sorted by path.
    pub candidates: Vec<Candidate>,
    pub skipped: Vec<Skipped>,
}

/// Walks `root` respecting `.gitignore`, `.ignore`, git's excludes and
/// `index.exclude`; hidden files and `.evident/` are never walked.
pub fn walk(root: &Path, config: &Config) -> Walk {
    let mut overrides = ignore::overrides::OverrideBuilder::new(root);
    for pattern in &config.exclude {
        // Validated when the config was loaded.
        let _ = overrides.add(&format!("!{pattern}"));
    }
    let overrides = overrides
        .build()
        .unwrap_or_else(|_| ignore::overrides::Override::empty());
    let walker = WalkBuilder::new(root)
        .hidden(true)
        .require_git(false)
        .follow_links(false)
        .overrides(overrides)
        .filter_entry(|e| e.file_name() != ".evident" && e.file_name() != ".git")
        .build();
    let mut out = Walk::default();
    for entry in walker {
        let Ok(entry) = entry else {
            // Unreadable directories and loops: nothing under them can be indexed.
            continue;
        };
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            continue;
        }
        let Ok(rel_path) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel_path
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let Some(spec) = lang::for_path(&rel) else {
            continue;
        };
        let skip = |reason: String| Skipped {
            rel: rel.clone(),
            reason,
        };
        if config.secrets.is_secret(&rel) {
            out.skipped.push(skip("secret file".into()));
            continue;
        }
        if file_type.is_symlink() {
            out.skipped.push(skip("symlink (not followed)".into()));
            continue;
        }
        if !file_type.is_file() {
            out.skipped.push(skip("not a regular file".into()));
            continue;
        }
        let metadata = match entry.metadata() {
            Ok(m) => m,
            Err(e) => {
                out.skipped.push(skip(format!("unreadable: {e}")));
                continue;
            }
        };
        if metadata.len() > config.max_file_size {
            out.skipped.push(skip(format!(
                "too large ({} bytes > limit {})",
                metadata.len(),
                config.max_file_size
            )));
            continue;
        }
        out.candidates.push(Candidate {
            rel,
            abs: entry.path().to_path_buf(),
            size: metadata.len(),
            mtime_ns: mtime_ns(&metadata),
            lang: spec,
        });
    }
    out.candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.skipped.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

pub fn mtime_ns(metadata: &std::fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64)
}
