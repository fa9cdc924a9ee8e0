//! A cheap answer to "has anything changed since the last index?" for
//! long-running processes (the MCP server): one `stat` of each indexed file
//! and of each directory that holds one, no walk and no read. A new or removed
//! file changes its directory's mtime; an edited file changes its own size or
//! mtime. A `true` here is only a reason to run the (incremental) indexer,
//! which then decides exactly what changed.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashSet;

use crate::config::Config;
use crate::error::Result;
use crate::settings::CONFIG_FILE;
use crate::store;
use crate::walk::mtime_ns;

/// How far before a run's start a directory's mtime must be to count as settled.
const CLOCK_MARGIN: Duration = Duration::from_millis(100);

/// The stat data of the indexed files and their directories, as of one index run.
#[derive(Debug, Default)]
pub struct StatSnapshot {
    files: Vec<(PathBuf, u64, i64)>,
    /// Directories with their mtime; `None` where it moved during the run,
    /// so the next check reports a change (one more, cheap, incremental run).
    dirs: Vec<(PathBuf, Option<i64>)>,
}

impl StatSnapshot {
    /// The snapshot of the index at `root`, for a run that started at `started`.
    pub fn take(root: &Path, started: SystemTime) -> Result<StatSnapshot> {
        let root = root.canonicalize().map_err(|e| crate::Error::io(root, e))?;
        let config = Config::load(&root)?;
        let conn = store::open_for_read(&root)?;
        let mut rows: Vec<(String, (i64, i64))> =
            store::reads::file_stats(&conn)?.into_iter().collect();
        rows.sort();
        let mut files = Vec::new();
        let mut dirs: FxHashSet<PathBuf> = FxHashSet::default();
        dirs.insert(root.clone());
        for dir in &config.docs_dirs {
            dirs.insert(dir.path.clone());
        }
        for (rel, (size, mtime)) in rows {
            let abs = absolute(&root, &config, &rel);
            let mut parent = abs.parent();
            while let Some(dir) = parent {
                if !dir.starts_with(&root)
                    && !config.docs_dirs.iter().any(|d| dir.starts_with(&d.path))
                    || !dirs.insert(dir.to_path_buf())
                {
                    break;
                }
                parent = dir.parent();
            }
            files.push((abs, size as u64, mtime));
        }
        // The configuration decides what is indexed: an edit to it is a change.
        let config_file = root.join(CONFIG_FILE);
        let config_stat = std::fs::metadata(&config_file).ok();
        files.push((
            config_file,
            config_stat.as_ref().map_or(u64::MAX, |m| m.len()),
            config_stat.as_ref().map_or(-1, mtime_ns),
        ));
        // File systems stamp times from a coarse clock (a tick of 1-10 ms), so a
        // directory changed just after `started` can carry an earlier time: only
        // times clearly before the run count as settled.
        let settled_before = started
            .checked_sub(CLOCK_MARGIN)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        let dirs = dirs
            .into_iter()
            .map(|dir| {
                let mtime = std::fs::metadata(&dir).ok().map(|m| mtime_ns(&m));
                (dir, mtime.filter(|&m| m < settled_before))
            })
            .collect();
        Ok(StatSnapshot { files, dirs })
    }

    /// The first path that differs from the snapshot, if any.
    pub fn changed(&self) -> Option<&Path> {
        for (dir, mtime) in &self.dirs {
            let now = std::fs::metadata(dir).ok().map(|m| mtime_ns(&m));
            if mtime.is_none() || now != *mtime {
                return Some(dir);
            }
        }
        for (file, size, mtime) in &self.files {
            match std::fs::metadata(file) {
                Ok(m) if m.len() == *size && mtime_ns(&m) == *mtime => {}
                // An absent configuration file that is still absent.
                Err(_) if *mtime == -1 => {}
                _ => return Some(file),
            }
        }
        None
    }

    /// How many paths one check stats.
    pub fn len(&self) -> usize {
        self.files.len() + self.dirs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where an indexed path lives on disk (`@NAME/...` is a `[docs] dirs` mount).
fn absolute(root: &Path, config: &Config, rel: &str) -> PathBuf {
    for dir in &config.docs_dirs {
        if let Some(rest) = rel
            .strip_prefix(dir.mount.as_str())
            .and_then(|r| r.strip_prefix('/'))
        {
            return dir.path.join(rest);
        }
    }
    root.join(rel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{index_repo, IndexOptions};

    fn indexed() -> (tempfile::TempDir, StatSnapshot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg/sub")).unwrap();
        std::fs::write(dir.path().join("pkg/sub/a.py"), "def a():\n    pass\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "def b():\n    pass\n").unwrap();
        // The first run creates .evident/ (the root changes); directory
        // mtimes must predate the snapshot's run by the margin to count as settled.
        index_repo(dir.path(), &IndexOptions::default()).unwrap();
        std::thread::sleep(CLOCK_MARGIN + Duration::from_millis(20));
        let started = SystemTime::now();
        index_repo(dir.path(), &IndexOptions::default()).unwrap();
        let snapshot = StatSnapshot::take(dir.path(), started).unwrap();
        (dir, snapshot)
    }

    #[test]
    fn a_directory_changed_during_the_run_counts_as_changed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.py"), "def b():\n    pass\n").unwrap();
        let started = SystemTime::now();
        // The first run creates .evident/ in the root after `started`.
        index_repo(dir.path(), &IndexOptions::default()).unwrap();
        let snapshot = StatSnapshot::take(dir.path(), started).unwrap();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(snapshot.changed(), Some(root.as_path()));
    }

    #[test]
    fn nothing_changed_after_a_run() {
        let (_dir, snapshot) = indexed();
        // root, pkg, pkg/sub; two files and the (absent) configuration file.
        assert_eq!(snapshot.len(), 6);
        assert_eq!(snapshot.changed(), None);
    }

    #[test]
    fn an_edit_an_addition_and_a_removal_are_each_seen() {
        let (dir, snapshot) = indexed();
        std::fs::write(dir.path().join("b.py"), "def b():\n    return 1\n").unwrap();
        assert_eq!(
            snapshot.changed(),
            Some(dir.path().canonicalize().unwrap().join("b.py").as_path())
        );

        let (dir, snapshot) = indexed();
        std::fs::write(dir.path().join("pkg/sub/new.py"), "x = 1\n").unwrap();
        let changed = snapshot
            .changed()
            .expect("a new file changes its directory");
        assert!(changed.ends_with("pkg/sub"), "{changed:?}");

        let (dir, snapshot) = indexed();
        std::fs::remove_file(dir.path().join("pkg/sub/a.py")).unwrap();
        assert!(snapshot.changed().is_some());

        let (dir, snapshot) = indexed();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "[index]\nmax_file_size = 10\n",
        )
        .unwrap();
        assert!(
            snapshot.changed().is_some(),
            "a new evident.toml is a change"
        );
    }
}
