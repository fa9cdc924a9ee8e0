//! What a long-lived process (the daemon, `mcp`, `serve`) remembers between
//! indexing runs and checks: the last walk, and the paths a file watcher saw
//! change since. A run or a check given one walks again only the
//! directories on the way to a changed path, under the same rules as a
//! whole walk, instead of every directory; and when the index holds that
//! last walk, the changed paths' stats alone say what is stale.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::{walk, walk_dir, Candidate, Walk};
use crate::config::Config;
use crate::lang::imports::Resolver;

/// Files whose change can move any path in or out of the walk: then the
/// next run walks everything.
const RULE_FILES: &[&str] = &[".gitignore", ".ignore", crate::settings::CONFIG_FILE];

#[derive(Default)]
pub struct WalkMemory {
    last: Option<Last>,
    /// Repository-relative paths (files or directories) changed since
    /// `last`; `None`: not known (events were lost), so everything.
    changed: Option<BTreeSet<String>>,
    /// The import resolver of the last run that finished, and the paths
    /// changed since it was made (`None`: not known).
    resolver: Option<Resolver>,
    since_resolver: Option<BTreeSet<String>>,
}

/// A walk, the configuration it was walked under, and whether the index
/// holds exactly its files (as a finished run or a check that found
/// nothing stale left it).
struct Last {
    walk: Walk,
    config: String,
    indexed: bool,
}

/// A walk, and what changed since the walk the index holds when the memory
/// knows it (then no stored stat data need be read to tell).
pub(crate) struct Walked {
    pub walk: Walk,
    pub since_indexed: Option<Changes>,
}

/// Candidates modified, added and deleted between two walks, each sorted.
#[derive(Default)]
pub(crate) struct Changes {
    pub modified: Vec<String>,
    pub added: Vec<String>,
    pub deleted: Vec<String>,
}

impl WalkMemory {
    /// A watcher saw `rel` (relative to the root, `/`-separated) change.
    pub fn changed(&mut self, rel: &str) {
        for changed in [&mut self.changed, &mut self.since_resolver]
            .into_iter()
            .flatten()
        {
            changed.insert(rel.to_string());
        }
    }

    /// The last run's resolver when it still holds for `present` (the same
    /// files, and only indexed files other than project files changed
    /// since); the changes a later one is judged by are counted from now.
    pub(crate) fn take_resolver(&mut self, present: &HashSet<&str>) -> Option<Resolver> {
        let resolver = self.resolver.take();
        let since = self.since_resolver.replace(BTreeSet::new());
        let only_sources =
            (since?.iter()).all(|p| present.contains(p.as_str()) && !Resolver::reads(p));
        resolver.filter(|r| only_sources && r.holds_exactly(present))
    }

    /// Whether a path changed since the last walk (or events were lost).
    pub fn has_changes(&self) -> bool {
        self.changed.as_ref().is_none_or(|c| !c.is_empty())
    }

    /// Events were lost (the watcher's queue overflowed, say).
    pub fn lost_track(&mut self) {
        self.changed = None;
        self.since_resolver = None;
    }
}

/// The walk of `root`: from `memory` and the changed paths when it holds a
/// walk under the same configuration, else a whole walk. Events that come
/// in while the run goes on are kept for the next one.
pub(crate) fn walk_with(
    root: &Path,
    config: &Config,
    memory: Option<&Mutex<WalkMemory>>,
) -> Walked {
    let whole = || Walked {
        walk: walk(root, config),
        since_indexed: None,
    };
    let Some(memory) = memory else {
        return whole();
    };
    let (last, changed) = {
        let mut memory = memory.lock().expect("walk memory");
        let changed = memory.changed.replace(BTreeSet::new());
        (memory.last.take(), changed)
    };
    match (last, changed) {
        (Some(last), Some(changed))
            if last.config == format!("{config:?}")
                && config.docs_dirs.is_empty()
                && !changed.iter().any(|p| changes_rules(p)) =>
        {
            let (walk, changes) = walk_changed(root, config, last.walk, &changed);
            Walked {
                walk,
                since_indexed: last.indexed.then_some(changes),
            }
        }
        _ => whole(),
    }
}

/// The walk the next run or check starts from; `indexed`: the index holds
/// exactly its files.
pub(crate) fn remember(
    memory: Option<&Mutex<WalkMemory>>,
    config: &Config,
    walked: &Walk,
    indexed: bool,
) {
    if let Some(memory) = memory {
        memory.lock().expect("walk memory").last = Some(Last {
            walk: walked.clone(),
            config: format!("{config:?}"),
            indexed,
        });
    }
}

/// After a run that finished: its walk (the index holds it) and its
/// resolver are what the next run starts from.
pub(crate) fn remember_run(
    memory: Option<&Mutex<WalkMemory>>,
    config: &Config,
    walked: &Walk,
    resolver: Resolver,
) {
    remember(memory, config, walked, true);
    if let Some(memory) = memory {
        memory.lock().expect("walk memory").resolver = Some(resolver);
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

/// `last` with every path at or under a changed one walked again, and
/// how its candidates there differ from the new ones.
fn walk_changed(
    root: &Path,
    config: &Config,
    last: Walk,
    changed: &BTreeSet<String>,
) -> (Walk, Changes) {
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
    let (before, mut candidates): (Vec<_>, Vec<_>) =
        last.candidates.into_iter().partition(|c| under(&c.rel));
    let now: Vec<Candidate> = (again.candidates.into_iter())
        .filter(|c| under(&c.rel))
        .collect();
    let changes = compare(&before, &now);
    candidates.extend(now);
    let mut out = Walk {
        candidates,
        skipped: last
            .skipped
            .into_iter()
            .filter(|s| !under(&s.rel))
            .collect(),
    };
    out.skipped
        .extend(again.skipped.into_iter().filter(|s| under(&s.rel)));
    out.candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.skipped.sort_by(|a, b| a.rel.cmp(&b.rel));
    (out, changes)
}

/// What differs between two sets of candidates (by path, size and mtime).
fn compare(before: &[Candidate], now: &[Candidate]) -> Changes {
    let stat: HashMap<&str, (u64, i64)> = (before.iter())
        .map(|c| (c.rel.as_str(), (c.size, c.mtime_ns)))
        .collect();
    let mut changes = Changes::default();
    for c in now {
        match stat.get(c.rel.as_str()) {
            Some(&(size, mtime)) if size == c.size && mtime == c.mtime_ns => {}
            Some(_) => changes.modified.push(c.rel.clone()),
            None => changes.added.push(c.rel.clone()),
        }
    }
    let present: HashSet<&str> = now.iter().map(|c| c.rel.as_str()).collect();
    changes.deleted = (before.iter())
        .filter(|c| !present.contains(c.rel.as_str()))
        .map(|c| c.rel.clone())
        .collect();
    changes.modified.sort();
    changes.added.sort();
    changes.deleted.sort();
    changes
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
        let first = walk_with(&root, &config, Some(&memory)).walk;
        remember(Some(&memory), &config, &first, true);
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
            let before = walk(&root, &config);
            change(&root);
            for path in paths {
                memory.lock().unwrap().changed(path);
            }
            let walked = walk_with(&root, &config, Some(&memory));
            let after = walk(&root, &config);
            assert_eq!(listed(&walked.walk), listed(&after), "after {paths:?}");
            // What changed, as two whole walks differ.
            if let Some(changes) = walked.since_indexed {
                assert_eq!(
                    (changes.modified, changes.added, changes.deleted),
                    differences(&before, &after),
                    "after {paths:?}"
                );
            } else {
                assert_eq!(paths, &[".gitignore"], "only a rule file walks everything");
            }
            remember(Some(&memory), &config, &walked.walk, true);
        }
        // Only the changed paths are walked: a file no event named is not seen.
        write(&root, "unseen.py", "u = 1\n");
        memory.lock().unwrap().changed("a.py");
        let walked = walk_with(&root, &config, Some(&memory)).walk;
        assert!(!listed(&walked).iter().any(|l| l.starts_with("unseen.py")));
        // A walk the index does not hold tells nothing of what changed since.
        remember(Some(&memory), &config, &walked, false);
        memory.lock().unwrap().changed("a.py");
        assert!(walk_with(&root, &config, Some(&memory))
            .since_indexed
            .is_none());
        // Events lost: everything is walked.
        write(&root, "lost.py", "l = 1\n");
        memory.lock().unwrap().lost_track();
        let walked = walk_with(&root, &config, Some(&memory)).walk;
        assert!(listed(&walked).iter().any(|l| l.starts_with("lost.py")));
    }

    /// Paths modified, added and deleted from one walk to another, by their
    /// size and mtime.
    fn differences(before: &Walk, after: &Walk) -> (Vec<String>, Vec<String>, Vec<String>) {
        let stats = |w: &Walk| -> std::collections::BTreeMap<String, (u64, i64)> {
            (w.candidates.iter())
                .map(|c| (c.rel.clone(), (c.size, c.mtime_ns)))
                .collect()
        };
        let (old, new) = (stats(before), stats(after));
        let modified = (new.iter())
            .filter(|(p, s)| old.get(*p).is_some_and(|o| o != *s))
            .map(|(p, _)| p.clone())
            .collect();
        let added = new
            .keys()
            .filter(|p| !old.contains_key(*p))
            .cloned()
            .collect();
        let deleted = old
            .keys()
            .filter(|p| !new.contains_key(*p))
            .cloned()
            .collect();
        (modified, added, deleted)
    }
}
