//! What a run is asked to do and what it reports.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::store::parse_cache::ParseCacheSettings;
use crate::walk::memory::WalkMemory;
use crate::walk::Skipped;

/// Reports an indexing run's progress (a terminal progress bar, a log).
pub trait Progress: Send + Sync {
    /// `total` files will be read and compared.
    fn start(&self, total: u64);
    /// One more file is done.
    fn advance(&self, path: &str);
    fn finish(&self);
}

#[derive(Clone, Default)]
pub struct IndexOptions {
    /// Build the index from scratch (in a side file: readers keep the old
    /// index until the new one is complete).
    pub rebuild: bool,
    /// Read every page of the index for damage first (a run also does so
    /// once a day, and after a reader met a damaged page).
    pub check: bool,
    /// Overrides `index.max_file_size` from `evident.toml`.
    pub max_file_size: Option<u64>,
    /// Files per transaction (default 256).
    pub batch_size: Option<usize>,
    /// Set to stop after the batch in progress (Ctrl-C).
    pub cancel: Option<Arc<AtomicBool>>,
    pub progress: Option<Arc<dyn Progress>>,
    /// The per-user cache of parse results to use (`None`: parse every
    /// changed file; the command line passes the user's, see
    /// [`ParseCacheSettings::for_user`]).
    pub parse_cache: Option<ParseCacheSettings>,
    /// A SCIP index to merge into the graph (relative to the root, or
    /// absolute); without one, the one an earlier run used, else
    /// `index.scip` at the root when there is one.
    pub scip: Option<PathBuf>,
    /// A long-lived process's memory of the last walk and of what its file
    /// watcher saw change since: the run walks only the changed paths.
    pub walk_memory: Option<Arc<Mutex<WalkMemory>>>,
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub root: PathBuf,
    /// Files in the index after the run.
    pub files: u64,
    /// Files parsed in this run (or whose facts came from the parse cache).
    pub parsed: u64,
    /// Of the files parsed, those whose facts the per-user parse cache had.
    pub from_cache: u64,
    /// Files whose content was unchanged.
    pub unchanged: u64,
    /// Files whose content was read in this run (parsed, or hashed to find
    /// it unchanged); in a git work tree, git's index vouches for the rest.
    pub read: u64,
    /// The index this one started from: another worktree's of the same
    /// repository, copied when this one did not exist yet.
    pub seeded_from: Option<PathBuf>,
    /// Files new to the walked file set (a file the last run walked but
    /// could not index is not new).
    pub added: u64,
    /// Files removed from the index (deleted, now ignored or skipped).
    pub removed: u64,
    pub definitions: u64,
    pub imports: u64,
    pub calls: u64,
    /// Call sites (re-)resolved in this run.
    pub resolved_calls: u64,
    /// Files left out, with reasons.
    pub skipped: Vec<Skipped>,
    /// Files parsed in this run that gave symbols from their first lines
    /// only (past [`extract::MAX_FACTS_PER_FILE`]); the rest is searched as text.
    pub in_part: Vec<Skipped>,
    /// Files that parsed with syntax errors (kept, with what could be read).
    pub syntax_errors: u64,
    pub elapsed: Duration,
    /// The SCIP index imported in this run (new, or written again).
    pub scip_imported: Option<PathBuf>,
    /// SCIP documents found stale in this run (their files changed since
    /// the SCIP index was written), with why: their data is not used.
    pub scip_stale: Vec<(String, String)>,
    /// The SCIP index in use before, now gone: its data was dropped.
    pub scip_dropped: Option<String>,
    /// The SCIP index could not be read (why): the run used none.
    pub scip_unreadable: Option<String>,
    /// Whether the index was created by this run.
    pub created: bool,
    /// The index was found damaged and built again.
    pub rebuilt_damaged: bool,
}
