//! The per-user cache of parse results: what extracting a file gave, keyed by
//! everything that decides it (this build of evident, the language, the
//! file's path, its bytes' git blob id, the extraction context). Every
//! worktree, branch and clone of a repository on the machine shares it: a
//! file whose bytes any index has parsed at that path is not parsed again
//! (switching back to a branch, a second worktree, a fresh clone).
//!
//! Bounded: past its size limit the least recently used entries go, after
//! the run that pushed it over. Best effort: an entry that cannot be read,
//! decoded or written is parsed as if absent, and two runs writing the same
//! entry write the same bytes (each through a temporary file and a rename).
//! Holds nothing that depends on other files: import targets are resolved
//! and chunks cut when an entry is used. Must not be the index: dropping the
//! cache changes how long a run takes, never what it writes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use crate::lang::extract::{Context, FileFacts};

/// Bumped whenever what an entry holds changes shape.
const FORMAT: u32 = 1;

/// The default size limit: 2 GiB (two versions of the Linux kernel take 971 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

/// Where the cache lives and how large it may grow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseCacheSettings {
    pub dir: PathBuf,
    pub max_bytes: u64,
}

impl ParseCacheSettings {
    /// `$EVIDENT_CACHE_DIR`, else `$XDG_CACHE_HOME/evident/parsed`, else
    /// `~/.cache/evident/parsed`; `max_mib` from the user's `[cache]`
    /// settings. `None` when there is no home to put it in, or `max_mib` is 0.
    pub fn for_user(max_mib: Option<u64>) -> Option<ParseCacheSettings> {
        let max_bytes = max_mib.map_or(DEFAULT_MAX_BYTES, |m| m.saturating_mul(1 << 20));
        if max_bytes == 0 {
            return None;
        }
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let dir = match var("EVIDENT_CACHE_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|home| Path::new(&home).join(".cache")))?
                .join("evident")
                .join("parsed"),
        };
        Some(ParseCacheSettings { dir, max_bytes })
    }
}

/// The cache as one indexing run uses it.
pub(crate) struct ParseCache {
    dir: PathBuf,
    max_bytes: u64,
    /// What identifies this build: an entry another build wrote is never read.
    build: String,
    /// Bytes this run added.
    written: AtomicU64,
    pub hits: AtomicU64,
}

impl ParseCache {
    pub fn open(settings: &ParseCacheSettings) -> ParseCache {
        ParseCache {
            dir: settings.dir.clone(),
            max_bytes: settings.max_bytes,
            build: build_identity(),
            written: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        }
    }

    /// The entry for a file's facts: a hash of all that decides them.
    pub fn key(&self, lang: &str, rel: &str, blob_id: &str, context: &Context<'_>) -> String {
        let text = format!(
            "{FORMAT}\0{}\0{lang}\0{rel}\0{blob_id}\0{}\0{}",
            self.build,
            context.crate_name.unwrap_or(""),
            context.fallback_present
        );
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(&key[2..])
    }

    /// The facts stored under `key`, marked as used.
    pub fn get(&self, key: &str) -> Option<FileFacts> {
        let path = self.path(key);
        let bytes = std::fs::read(&path).ok()?;
        let (read_as, mut facts): (Option<String>, FileFacts) =
            postcard::from_bytes(&bytes).ok()?;
        facts.read_as = match read_as {
            Some(name) => Some(crate::lang::by_name(&name)?.name),
            None => None,
        };
        // Its modification time says when it was last used (eviction goes by it).
        if let Ok(file) = std::fs::File::options().write(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(facts)
    }

    /// Stores `facts` under `key` (a failure leaves the entry absent).
    pub fn put(&self, key: &str, facts: &FileFacts) {
        let Ok(bytes) = postcard::to_stdvec(&(facts.read_as, facts)) else {
            return;
        };
        let path = self.path(key);
        let Some(dir) = path.parent() else {
            return;
        };
        let temporary = dir.join(format!(".{}.{}", &key[2..], std::process::id()));
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::File::create(&temporary))
            .and_then(|mut file| file.write_all(&bytes))
            .and_then(|()| std::fs::rename(&temporary, &path));
        match written {
            Ok(()) => {
                self.written
                    .fetch_add(bytes.len() as u64, Ordering::Relaxed);
            }
            Err(_) => {
                let _ = std::fs::remove_file(&temporary);
            }
        }
    }

    /// After a run: adds what it wrote to the recorded size, and when that
    /// passes the limit, removes the least recently used entries.
    pub fn settle(&self) {
        let written = self.written.load(Ordering::Relaxed);
        if written == 0 {
            return;
        }
        let usage_path = self.dir.join("usage");
        let recorded: u64 = std::fs::read_to_string(&usage_path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let mut usage = recorded.saturating_add(written);
        if usage > self.max_bytes {
            // Down to three quarters: the next runs have room before the next walk.
            usage = evict(&self.dir, self.max_bytes - self.max_bytes / 4);
        }
        let temporary = self.dir.join(format!(".usage.{}", std::process::id()));
        if std::fs::write(&temporary, usage.to_string()).is_ok() {
            let _ = std::fs::rename(&temporary, &usage_path);
        }
    }
}

/// Removes the least recently used entries until at most `keep` bytes stay;
/// returns the bytes that stay.
fn evict(dir: &Path, keep: u64) -> u64 {
    let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    for shard in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if !shard.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        for entry in std::fs::read_dir(shard.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(meta) = entry.metadata() {
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                entries.push((used, meta.len(), entry.path()));
            }
        }
    }
    let mut total: u64 = entries.iter().map(|(_, len, _)| len).sum();
    entries.sort();
    for (_, len, path) in entries {
        if total <= keep {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
    total
}

/// This build of evident: its version and its executable's size and
/// modification time (a rebuild with other queries or rules is another build).
fn build_identity() -> String {
    let executable = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {modified}", m.len())
        })
        .unwrap_or_default();
    format!("{} {executable}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: &Path, max_bytes: u64) -> ParseCacheSettings {
        ParseCacheSettings {
            dir: dir.to_path_buf(),
            max_bytes,
        }
    }

    fn facts(module: &str) -> FileFacts {
        FileFacts {
            module: module.into(),
            line_count: 3,
            read_as: Some("cpp"),
            ..FileFacts::default()
        }
    }

    const CONTEXT: Context<'static> = Context {
        crate_name: None,
        fallback_present: false,
    };

    #[test]
    fn an_entry_comes_back_as_stored_under_its_own_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ParseCache::open(&settings(dir.path(), 1 << 20));
        let key = cache.key("c", "a.h", "e69de29", &CONTEXT);
        assert_eq!(cache.get(&key), None);
        cache.put(&key, &facts("a"));
        assert_eq!(cache.get(&key), Some(facts("a")));
        // Anything that decides the facts is part of the key.
        let other_keys = [
            cache.key("cpp", "a.h", "e69de29", &CONTEXT),
            cache.key("c", "b.h", "e69de29", &CONTEXT),
            cache.key("c", "a.h", "e69de2a", &CONTEXT),
            cache.key(
                "c",
                "a.h",
                "e69de29",
                &Context {
                    fallback_present: true,
                    ..CONTEXT
                },
            ),
        ];
        for other in other_keys {
            assert_ne!(other, key);
            assert_eq!(cache.get(&other), None);
        }
        assert_eq!(cache.hits.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_damaged_entry_reads_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ParseCache::open(&settings(dir.path(), 1 << 20));
        let key = cache.key("python", "m.py", "abc", &CONTEXT);
        cache.put(&key, &facts("m"));
        std::fs::write(cache.path(&key), b"\xff\xff\xff").unwrap();
        assert_eq!(cache.get(&key), None);
    }

    #[test]
    fn past_the_limit_the_least_recently_used_entries_go() {
        let dir = tempfile::tempdir().unwrap();
        let one = postcard::to_stdvec(&(Some("cpp"), facts("m0")))
            .unwrap()
            .len() as u64;
        // Room for four entries: writing ten leaves three (75% of the limit).
        let limit = 4 * one;
        let cache = ParseCache::open(&settings(dir.path(), limit));
        let keys: Vec<String> = (0..10)
            .map(|i| cache.key("python", &format!("m{i}.py"), "abc", &CONTEXT))
            .collect();
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, key) in keys.iter().enumerate() {
            cache.put(key, &facts(&format!("m{i}")));
            // Entries used in order: m0 longest ago.
            let file = std::fs::File::options()
                .write(true)
                .open(cache.path(key))
                .unwrap();
            file.set_modified(old + std::time::Duration::from_secs(i as u64))
                .unwrap();
        }
        cache.settle();
        let kept: Vec<usize> = (0..10).filter(|i| cache.path(&keys[*i]).exists()).collect();
        assert_eq!(kept, vec![7, 8, 9]);
        let usage: u64 = std::fs::read_to_string(dir.path().join("usage"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(usage, 3 * one);
    }
}
