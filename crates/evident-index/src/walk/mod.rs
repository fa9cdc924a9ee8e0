//! Walking a repository: which files are candidates for the index, and which
//! are skipped and why.

mod format;
pub mod freshness;
pub mod git;
pub mod memory;
mod refusal;
pub mod sandbox;

pub use format::Format;
pub use refusal::Refusal;

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use ignore::WalkBuilder;

use crate::config::Config;

/// A file that will be indexed if its content can be read.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
    pub format: Format,
}

/// A source file left out of the index, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub rel: String,
    pub reason: String,
}

impl Skipped {
    /// The reason without its details (what precedes ` (` or `:`): `too
    /// large`, `secret file`, `binary`, `unreadable`, `symlink`, ...; for
    /// counting skips by kind.
    pub fn category(&self) -> &str {
        let reason = self.reason.as_str();
        let end = [reason.find(" ("), reason.find(':')]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(reason.len());
        &reason[..end]
    }

    /// How many skips of each category, most frequent first (ties by name).
    pub fn count_by_category(skipped: &[Skipped]) -> Vec<(&str, usize)> {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for s in skipped {
            match counts.iter_mut().find(|(c, _)| *c == s.category()) {
                Some((_, n)) => *n += 1,
                None => counts.push((s.category(), 1)),
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        counts
    }
}

#[derive(Debug, Default, Clone)]
pub struct Walk {
    /// Sorted by path.
    pub candidates: Vec<Candidate>,
    pub skipped: Vec<Skipped>,
}

/// Walks `root` respecting `.gitignore`, `.ignore`, git's excludes and
/// `index.exclude`; hidden files and `.evident/` are never walked. Then the
/// documents (only) of each `[docs] dirs` directory, under its `@NAME/`.
pub fn walk(root: &Path, config: &Config) -> Walk {
    let mut out = walk_dir(root, config, &config.exclude, None);
    for dir in &config.docs_dirs {
        let found = walk_dir(&dir.path, config, &[], None);
        let prefix = |rel: &str| format!("{}/{rel}", dir.mount);
        out.candidates.extend(
            found
                .candidates
                .into_iter()
                .filter(|c| matches!(c.format, Format::Doc(_)))
                .map(|c| Candidate {
                    rel: prefix(&c.rel),
                    ..c
                }),
        );
        out.skipped
            .extend(found.skipped.into_iter().map(|s| Skipped {
                rel: prefix(&s.rel),
                ..s
            }));
    }
    out.candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.skipped.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// Which directories and files under the root a walk enters, by their
/// `/`-separated relative path (the root's is empty).
type Keep = std::sync::Arc<dyn Fn(&str) -> bool + Send + Sync>;

fn walk_dir(root: &Path, config: &Config, exclude: &[String], keep: Option<Keep>) -> Walk {
    let mut overrides = ignore::overrides::OverrideBuilder::new(root);
    for pattern in exclude {
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
        .threads(
            std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(4),
        )
        .filter_entry({
            let root = root.to_path_buf();
            move |e| {
                e.file_name() != ".evident"
                    && e.file_name() != ".git"
                    && keep
                        .as_ref()
                        .is_none_or(|keep| keep(&relative(&root, e.path())))
            }
        })
        .build_parallel();
    let found = std::sync::Mutex::new(Walk::default());
    walker.run(|| {
        let found = &found;
        Box::new(move |entry| {
            // Unreadable directories and loops are left out: nothing under them can be indexed.
            if let Ok(entry) = entry {
                match classify(root, config, &entry) {
                    Some(Ok(c)) => found.lock().expect("walk lock").candidates.push(c),
                    Some(Err(s)) => found.lock().expect("walk lock").skipped.push(s),
                    None => {}
                }
            }
            ignore::WalkState::Continue
        })
    });
    found.into_inner().expect("walk lock")
}

/// A walked entry as a candidate, a skip with its reason, or nothing (not source code).
fn classify(
    root: &Path,
    config: &Config,
    entry: &ignore::DirEntry,
) -> Option<Result<Candidate, Skipped>> {
    let file_type = entry.file_type()?;
    if file_type.is_dir() {
        return None;
    }
    entry.path().strip_prefix(root).ok()?;
    let rel = relative(root, entry.path());
    let format = Format::for_path(&rel)?;
    let skip = |reason: String| {
        Some(Err(Skipped {
            rel: rel.clone(),
            reason,
        }))
    };
    if config.secrets.is_secret(&rel) {
        return skip("secret file".into());
    }
    if let Some(why) = crate::walk::sandbox::suspicious(&rel) {
        return skip(format!("a name the path sandbox refuses: it {why}"));
    }
    if file_type.is_symlink() {
        return skip("symlink (not followed)".into());
    }
    if !file_type.is_file() {
        return skip("not a regular file".into());
    }
    let metadata = match entry.metadata() {
        Ok(m) => m,
        Err(e) => return skip(format!("unreadable: {e}")),
    };
    if let Some(links) = crate::walk::sandbox::extra_hard_links(&metadata) {
        return skip(format!(
            "hard link ({links} names; may be a file from outside the repository)"
        ));
    }
    if metadata.len() > config.max_file_size {
        return skip(format!(
            "too large ({} bytes > limit {})",
            metadata.len(),
            config.max_file_size
        ));
    }
    Some(Ok(Candidate {
        abs: entry.path().to_path_buf(),
        size: metadata.len(),
        mtime_ns: mtime_ns(&metadata),
        format,
        rel,
    }))
}

/// `path` relative to `root`, `/`-separated (empty for the root itself).
pub fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

pub fn mtime_ns(metadata: &std::fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64)
}

#[cfg(test)]
mod tests {
    use super::Skipped;

    fn skip(reason: &str) -> Skipped {
        Skipped {
            rel: "x".into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn skips_are_counted_by_the_reason_without_its_details() {
        let skipped = [
            skip("too large (52428800 bytes > limit 1048576)"),
            skip("secret file"),
            skip("too large (60000000 bytes > limit 1048576)"),
            skip("unreadable: permission denied (os error 13)"),
            skip("not a regular file"),
            skip("binary (NUL bytes)"),
        ];
        assert_eq!(
            Skipped::count_by_category(&skipped),
            vec![
                ("too large", 2),
                ("binary", 1),
                ("not a regular file", 1),
                ("secret file", 1),
                ("unreadable", 1)
            ]
        );
    }
}
