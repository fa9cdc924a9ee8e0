//! What a long-lived process (the daemon) remembers between indexing runs:
//! the last run's walk, and the paths a file watcher saw change since. A run
//! given one walks again only the directories on the way to a changed path,
//! under the same rules as a whole walk, instead of every directory.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::{walk, walk_dir, Walk};
use crate::config::Config;

/// Files whose change can move any path in or out of the walk: then the
/// next run walks everything.
const RULE_FILES: &[&str] = &[".gitignore", ".ignore", crate::settings::CONFIG_FILE];

#[derive(Default)]
pub struct WalkMemory {
    /// The last run's walk, and the configuration it was walked under.
    last: Option<(Walk, String)>,
    /// Repository-relative paths (files or directories) changed since
    /// `last`; `None`: not known (events were lost), so everything.
    changed: Option<BTreeSet<String>>,
}

impl WalkMemory {
    /// A watcher saw `rel` (relative to the root, `/`-separated) change.
    pub fn changed(&mut self, rel: &str) {
        if let Some(changed) = &mut self.changed {
            changed.insert(rel.to_string());
        }
    }

    /// Events were lost (the watcher's queue overflowed, say).
    pub fn lost_track(&mut self) {
        self.changed = None;
    }
}

/// The walk of `root`: from `memory` and the changed paths when it holds a
/// walk under the same configuration, else a whole walk. Events that come
/// in while the run goes on are kept for the next one.
pub(crate) fn walk_with(root: &Path, config: &Config, memory: Option<&Mutex<WalkMemory>>) -> Walk {
    let Some(memory) = memory else {
        return walk(root, config);
    };
    let (last, changed) = {
        let mut memory = memory.lock().expect("walk memory");
        let changed = memory.changed.replace(BTreeSet::new());
        (memory.last.take(), changed)
    };
    let signature = format!("{config:?}");
    match (last, changed) {
        (Some((last, walked_under)), Some(changed))
            if walked_under == signature
                && config.docs_dirs.is_empty()
                && !changed.iter().any(|p| changes_rules(p)) =>
        {
            walk_changed(root, config, last, &changed)
        }
        _ => walk(root, config),
    }
}

/// After a run that finished: its walk is what the next one starts from.
pub(crate) fn remember(memory: Option<&Mutex<WalkMemory>>, config: &Config, walked: &Walk) {
    if let Some(memory) = memory {
        memory.lock().expect("walk memory").last = Some((walked.clone(), format!("{config:?}")));
    }
}

/// `rel` is `dir` or inside it.
fn at_or_under(rel: &str, dir: &str) -> bool {
    rel.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

fn changes_rules(rel: &str) -> bool {
    rel.is_empty()
        || RULE_FILES
            .iter()
            .any(|f| rel.rsplit('/').next() == Some(*f))
}

/// `last` with every path at or under a changed one walked again.
fn walk_changed(root: &Path, config: &Config, last: Walk, changed: &BTreeSet<String>) -> Walk {
    let changed: Arc<Vec<String>> = Arc::new(changed.iter().cloned().collect());
    let under = {
        let changed = changed.clone();
        move |rel: &str| changed.iter().any(|c| at_or_under(rel, c))
    };
    let on_the_way = {
        let under = under.clone();
        move |rel: &str| rel.is_empty() || under(rel) || changed.iter().any(|c| at_or_under(c, rel))
    };
    let again = walk_dir(root, config, &config.exclude, Some(Arc::new(on_the_way)));
    let mut out = Walk {
        candidates: last
            .candidates
            .into_iter()
            .filter(|c| !under(&c.rel))
            .collect(),
        skipped: last
            .skipped
            .into_iter()
            .filter(|s| !under(&s.rel))
            .collect(),
    };
    out.candidates
        .extend(again.candidates.into_iter().filter(|c| under(&c.rel)));
    out.skipped
        .extend(again.skipped.into_iter().filter(|s| under(&s.rel)));
    out.candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.skipped.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn listed(walk: &Walk) -> Vec<String> {
        let mut out: Vec<String> = walk
            .candidates
            .iter()
            .map(|c| format!("{} {} {}", c.rel, c.size, c.mtime_ns))
            .collect();
        out.extend(
            walk.skipped
                .iter()
                .map(|s| format!("{} skipped: {}", s.rel, s.reason)),
        );
        out
    }

    /// After each change, the walk from memory and the changed paths is the
    /// whole walk.
    #[test]
    fn a_walk_of_the_changed_paths_equals_a_whole_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root, ".gitignore", "build/\n");
        write(&root, "a.py", "x = 1\n");
        write(&root, "pkg/sub/deep.py", "y = 2\n");
        write(&root, "pkg/mod.py", "z = 3\n");
        let config = Config::default();
        let memory = Mutex::new(WalkMemory::default());
        let first = walk_with(&root, &config, Some(&memory));
        remember(Some(&memory), &config, &first);
        assert_eq!(listed(&first), listed(&walk(&root, &config)));

        type Change = (&'static [&'static str], fn(&Path));
        let changes: [Change; 7] = [
            (&["new"], |r| write(r, "new/deep/x.py", "n = 1\n")),
            (&["build/out.py"], |r| write(r, "build/out.py", "b = 1\n")),
            (&["pkg/sub"], |r| {
                std::fs::remove_dir_all(r.join("pkg/sub")).unwrap()
            }),
            (&["a.py"], |r| write(r, "a.py", "x = 10\n")),
            (&[".hidden/h.py"], |r| write(r, ".hidden/h.py", "h = 1\n")),
            (&["pkg/.env", "pkg/mod.py"], |r| {
                write(r, "pkg/.env", "SECRET=1\n");
                std::fs::remove_file(r.join("pkg/mod.py")).unwrap();
            }),
            // A rule file changed: everything is walked.
            (&[".gitignore"], |r| write(r, ".gitignore", "new/\n")),
        ];
        for (paths, change) in changes {
            change(&root);
            for path in paths {
                memory.lock().unwrap().changed(path);
            }
            let walked = walk_with(&root, &config, Some(&memory));
            assert_eq!(
                listed(&walked),
                listed(&walk(&root, &config)),
                "after {paths:?}"
            );
            remember(Some(&memory), &config, &walked);
        }
        // Only the changed paths are walked: a file no event named is not seen.
        write(&root, "unseen.py", "u = 1\n");
        memory.lock().unwrap().changed("a.py");
        let walked = walk_with(&root, &config, Some(&memory));
        assert!(!listed(&walked).iter().any(|l| l.starts_with("unseen.py")));
        remember(Some(&memory), &config, &walked);
        // Events lost: everything is walked.
        write(&root, "lost.py", "l = 1\n");
        memory.lock().unwrap().lost_track();
        let walked = walk_with(&root, &config, Some(&memory));
        assert!(listed(&walked).iter().any(|l| l.starts_with("lost.py")));
    }
}
