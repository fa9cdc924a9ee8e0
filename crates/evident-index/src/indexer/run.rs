//! A run, one phase per function: walk and compare, forget what is gone,
//! parse and write in batches, resolve the calls and settle.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::outcome::{outcome_path, process, write_outcome, Outcome};
use super::profile::Profile;
use super::report::{IndexOptions, Progress, Summary};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::graph::calls::{self, Invalidation};
use crate::history;
use crate::lang;
use crate::lang::imports::{DeclaredPackages, Resolver};
use crate::store;
use crate::store::files::{self, StoredFile};
use crate::store::parse_cache::ParseCache;
use crate::walk::git::GitIdentities;
use crate::walk::memory::WalkMemory;
use crate::walk::{self, Candidate, Format, Skipped};

/// Git's index is asked for file identities when more files than this moved.
const ASK_GIT_PAST: usize = 32;

/// Meta key: the files the last complete run walked but could not index
/// (binary, unreadable), one per line: part of its file set, not of its rows.
const FAILED_CANDIDATES: &str = "failed_candidates";

/// What the walk found against what the index holds.
struct Comparison<'w> {
    present: HashSet<&'w str>,
    removed: Vec<(&'w String, i64)>,
    added: usize,
    /// A file the last run could not index is gone.
    failed_gone: bool,
    /// New files and files whose stat data moved, with git's id where git
    /// vouches for the working copy.
    to_read: Vec<(&'w Candidate, Option<String>)>,
}

impl Comparison<'_> {
    fn file_set_changed(&self) -> bool {
        self.added > 0 || !self.removed.is_empty() || self.failed_gone
    }
}

/// Brings `<root>/.evident/index.db` up to date with the files under `root`.
/// A damaged index (a page SQLite finds malformed, a missing table) is built
/// again, from the files, as `--rebuild` would.
pub fn index_repo(root: &Path, options: &IndexOptions) -> Result<Summary> {
    match index_once(root, options) {
        Err(e) if e.is_damage() && !options.rebuild => {
            let again = IndexOptions {
                rebuild: true,
                ..options.clone()
            };
            let mut summary = index_once(root, &again)?;
            summary.rebuilt_damaged = true;
            Ok(summary)
        }
        result => result,
    }
}

/// The index a run writes to.
struct Target {
    conn: Connection,
    created: bool,
    /// Written in the side file, which replaces the index when complete:
    /// readers keep the old index until then.
    side_file: bool,
}

fn open_target(root: &Path, options: &IndexOptions) -> Result<Target> {
    let side = |root| -> Result<Target> {
        Ok(Target {
            conn: store::open_side_file(root)?,
            created: true,
            side_file: true,
        })
    };
    if options.rebuild {
        return side(root);
    }
    store::remove_side_file(root)?;
    let (conn, created) = store::open_for_write(&store::index_path(root))?;
    if !created && check_due(&conn, root, options)? {
        store::quick_check(&conn)?;
        store::set_meta(&conn, CHECKED_AT, &unix_now().to_string())?;
        store::clear_damage_mark(root);
    }
    Ok(Target {
        conn,
        created,
        side_file: false,
    })
}

/// Meta key: when a run last found every page of the index sound.
const CHECKED_AT: &str = "checked_at";

/// An index this small is checked on every run: reading it costs a few
/// tens of milliseconds.
const ALWAYS_CHECKED_BYTES: u64 = 64 << 20;

/// A run reads every page (`quick_check`, about a second per GB) when asked
/// to, when a reader met a damaged page, when the index is small, and once a
/// day: a damaged page that is never read is found within a day, while an
/// edit of a large repository stays quick.
fn check_due(conn: &Connection, root: &Path, options: &IndexOptions) -> Result<bool> {
    const DAY: u64 = 24 * 60 * 60;
    let last: u64 = store::meta(conn, CHECKED_AT)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let small =
        std::fs::metadata(store::index_path(root)).is_ok_and(|m| m.len() <= ALWAYS_CHECKED_BYTES);
    Ok(options.check
        || small
        || store::damage_marked(root)
        || unix_now().saturating_sub(last) >= DAY)
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn index_once(root: &Path, options: &IndexOptions) -> Result<Summary> {
    let started = Instant::now();
    let mut profile = Profile::new(started);
    let root = checked_root(root)?;
    let head = history::head_meanwhile(&root);
    if let Some(scip) = &options.scip {
        // Before anything is read: a mistyped name should cost nothing.
        if !root.join(scip).is_file() {
            return Err(Error::NoSuchPath(root.join(scip)));
        }
    }
    let mut config = Config::load(&root)?;
    if let Some(limit) = options.max_file_size {
        config.max_file_size = limit;
    }
    // One indexing run at a time per repository: a second one waits here, then
    // finds the index up to date. (Readers never wait: WAL.)
    let run_lock = store::lock_for_indexing(&root)?;
    let seeded_from = seed_from_sibling(&root, options, &mut profile);
    // A rebuild starts a new file: the SCIP index the old one used is kept.
    let scip_remembered = if options.rebuild && options.scip.is_none() {
        store::open_for_read(&root)
            .ok()
            .and_then(|old| crate::scip::remembered(&old).ok().flatten())
    } else {
        None
    };
    let Target {
        mut conn,
        created,
        side_file,
    } = open_target(&root, options)?;
    if created || seeded_from.is_some() {
        exclude_from_git(&root);
    }
    compile_queries_meanwhile(&conn)?;
    let memory = options.walk_memory.as_deref();
    let walked = walk::memory::walk_with(&root, &config, memory).walk;
    profile.phase("walk");
    let stored = files::stored_files(&conn)?;
    profile.phase("read stored files");
    let failed_before = store::meta(&conn, FAILED_CANDIDATES)?.unwrap_or_default();
    let compared = compare(&root, &walked, &stored, &failed_before);
    // As last read; `settle` resolves again if this run's files changed them.
    let declared = files::declared_packages(&conn)?;
    let resolver = resolver_for(&root, &compared.present, declared, memory);
    profile.phase("compare (and git's identities), resolver");
    let fallbacks = fallback_languages_present(&walked.candidates);
    // Rust qualified names start with the crate's name from its Cargo.toml,
    // and imports resolve through go.mod, tsconfig.json paths and workspace
    // packages: when one of those changes, every stored name and import may
    // be wrong, so the index is built again (rare, and always right).
    // Whether a `.h` with syntax errors is tried as C++ depends on whether the
    // repository has C++ files: when that changes, so may every header.
    // So do other extraction rules (another build of evident).
    let layout = layout_of(&resolver, &fallbacks);
    if store::meta(&conn, "layout")?.unwrap_or_default() != layout {
        if !created && !options.rebuild {
            drop(conn);
            drop(run_lock);
            let again = IndexOptions {
                rebuild: true,
                ..options.clone()
            };
            return index_once(&root, &again);
        }
        store::set_meta(&conn, "layout", &layout)?;
        store::set_meta(&conn, "fallback_languages", &fallbacks)?;
    }
    profile.phase("walk and compare");
    let mut invalid = forget_removed(&mut conn, &walked, &compared, &resolver, created)?;
    profile.phase("removals and re-resolution");
    let mut summary = Summary {
        root: root.clone(),
        removed: compared.removed.len() as u64,
        added: compared.added as u64,
        created,
        seeded_from,
        ..Summary::default()
    };
    let run = Run {
        root: &root,
        config: &config,
        options,
        stored: &stored,
        resolver: &resolver,
        fallbacks: &fallbacks,
        scip_remembered,
        head: Mutex::new(Some(head)),
    };
    let failed = run.parse_and_write(
        &mut conn,
        compared.to_read,
        &mut summary,
        &mut invalid,
        &mut profile,
    )?;
    run.settle(&mut conn, &mut invalid, &failed, &mut summary, &mut profile)?;
    if created {
        // Just written whole: no check is due for a day.
        store::set_meta(&conn, CHECKED_AT, &unix_now().to_string())?;
    }
    if side_file {
        store::swap_in(&root, conn)?;
        store::clear_damage_mark(&root);
        profile.phase("swap the rebuilt index in");
    }
    walk::memory::remember_run(memory, &config, &walked, resolver);
    summary.skipped = walked.skipped;
    summary.skipped.extend(failed);
    summary.skipped.sort_by(|a, b| a.rel.cmp(&b.rel));
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// HEAD's history when `head` is not the commit the stored one was read
/// at (read before the last transaction: git is not run while it holds the
/// lock); `None` when the stored one is current, or git could not say.
fn moved_history(
    conn: &Connection,
    root: &Path,
    head: Option<String>,
) -> Result<Option<(Option<String>, Vec<history::PastCommit>)>> {
    if store::history::stored_head(conn)? == head {
        return Ok(None);
    }
    let commits = match head.as_deref() {
        Some(h) => history::read(root, h),
        None => Some(Vec::new()),
    };
    Ok(commits.map(|commits| (head, commits)))
}

/// What every stored name and import depends on besides the files: the
/// project's module layout, the fallback languages, the extraction rules.
fn layout_of(resolver: &Resolver, fallbacks: &str) -> String {
    format!(
        "{}\nfallbacks {fallbacks}\nrules {}",
        resolver.layout_signature(),
        crate::lang::rules_signature()
    )
}

/// The resolver over `present`: a long-lived process's last one while only
/// sources changed, else a new one.
fn resolver_for(
    root: &Path,
    present: &HashSet<&str>,
    declared: DeclaredPackages,
    memory: Option<&Mutex<WalkMemory>>,
) -> Resolver {
    let kept = memory.and_then(|m| m.lock().ok()?.take_resolver(present));
    match kept {
        Some(kept) => kept.into_declared(declared),
        None => Resolver::new(present.iter().copied(), root, declared),
    }
}

/// The root, canonical, when it is a directory.
fn checked_root(root: &Path) -> Result<PathBuf> {
    if !root.exists() {
        return Err(Error::NoSuchPath(root.to_path_buf()));
    }
    if !root.is_dir() {
        return Err(Error::NotADirectory(root.to_path_buf()));
    }
    root.canonicalize().map_err(|e| Error::io(root, e))
}

/// A new index of a repository another worktree has indexed starts as a
/// copy of that one: then only the files that differ are parsed.
fn seed_from_sibling(
    root: &Path,
    options: &IndexOptions,
    profile: &mut Profile,
) -> Option<PathBuf> {
    if options.rebuild || store::index_path(root).exists() {
        return None;
    }
    let seeded = walk::git::sibling_indexes(root)
        .into_iter()
        .find(|sibling| store::seed_from(root, sibling).is_ok());
    profile.phase("seed from a sibling worktree");
    seeded
}

/// Compiling a language's query takes ~10-15 ms; do it while the walk runs.
/// Not joined: a worker that needs a query before it is ready waits on its OnceLock.
fn compile_queries_meanwhile(conn: &Connection) -> Result<()> {
    let langs: Vec<&'static lang::LanguageSpec> = files::stored_languages(conn)?
        .iter()
        .filter_map(|l| lang::by_name(l))
        .collect();
    std::thread::spawn(move || {
        for l in &langs {
            let _ = l.query();
        }
    });
    Ok(())
}

fn compare<'w>(
    root: &Path,
    walked: &'w walk::Walk,
    stored: &'w HashMap<String, StoredFile>,
    failed_before: &str,
) -> Comparison<'w> {
    let present: HashSet<&str> = walked.candidates.iter().map(|c| c.rel.as_str()).collect();
    let removed: Vec<(&String, i64)> = stored
        .iter()
        .filter(|(path, _)| !present.contains(path.as_str()))
        .map(|(path, s)| (path, s.id))
        .collect();
    // Files the last run could not index (binary, unreadable) were in its
    // file set too: seen again, they add nothing to it.
    let failed_before: HashSet<&str> = failed_before.lines().collect();
    let added = walked
        .candidates
        .iter()
        .filter(|c| !stored.contains_key(&c.rel) && !failed_before.contains(c.rel.as_str()))
        .count();
    let failed_gone = failed_before.iter().any(|p| !present.contains(p));
    // A file is looked at when it is new or its stat data moved. Its id then
    // comes from git's index where git vouches for the working copy (the file
    // is not read when that is the stored id), else from its bytes. Asking
    // git costs a stat of every tracked file: worth it when many files moved
    // (a branch switch, a new worktree, a checkout's fresh mtimes), not for
    // an edit.
    let moved: Vec<&Candidate> = walked
        .candidates
        .iter()
        .filter(|c| {
            stored
                .get(&c.rel)
                .is_none_or(|s| s.size != c.size || s.mtime_ns != c.mtime_ns)
        })
        .collect();
    let identities = if moved.len() > ASK_GIT_PAST {
        GitIdentities::read(root).unwrap_or_default()
    } else {
        GitIdentities::default()
    };
    let to_read = moved
        .into_iter()
        .map(|c| (c, identities.get(&c.rel).map(str::to_string)))
        .collect();
    Comparison {
        present,
        removed,
        added,
        failed_gone,
        to_read,
    }
}

/// The first transaction: forget removed files, record skips, and re-resolve
/// stored imports when the file set changed (a new file can satisfy an
/// import, a deleted one can break it). Returns what the run must resolve.
fn forget_removed(
    conn: &mut Connection,
    walked: &walk::Walk,
    compared: &Comparison<'_>,
    resolver: &Resolver,
    created: bool,
) -> Result<Invalidation> {
    let file_set_changed = compared.file_set_changed();
    let skips_changed = files::skipped(conn)? != walked.skipped;
    // Edges are resolved after every batch is written; a run that stopped
    // before that leaves them stale, and the next run resolves them all.
    let mut invalid = Invalidation {
        all: created || store::meta(conn, "edges_state")?.as_deref() != Some("fresh"),
        ..Invalidation::default()
    };
    if !(file_set_changed || skips_changed || !compared.to_read.is_empty()) {
        return Ok(invalid);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    store::set_meta(&tx, "edges_state", "stale")?;
    for (path, id) in &compared.removed {
        invalid.note_old_rows(&tx, *id, path)?;
        files::delete_file(&tx, *id)?;
    }
    files::clear_skipped(&tx)?;
    for s in &walked.skipped {
        files::insert_skipped(&tx, s)?;
    }
    if file_set_changed {
        // Calls in files whose imports now point elsewhere may resolve differently.
        invalid.changed_paths.extend(reresolve_all(&tx, resolver)?);
    }
    store::set_meta(&tx, "run_state", "in_progress")?;
    tx.commit()?;
    Ok(invalid)
}

/// What the parse workers and the writer share for one run.
struct Run<'a> {
    root: &'a Path,
    config: &'a Config,
    options: &'a IndexOptions,
    stored: &'a HashMap<String, StoredFile>,
    resolver: &'a Resolver,
    fallbacks: &'a str,
    /// The SCIP index the index being rebuilt used.
    scip_remembered: Option<PathBuf>,
    /// The commit `HEAD` names, asked of git on a thread of its own while
    /// the run walks and parses (`settle` takes it).
    head: Mutex<Option<std::thread::JoinHandle<Option<String>>>>,
}

impl Run<'_> {
    /// Parses the files to read on a pool of workers while this thread
    /// writes their rows in batches. Returns the files that could not be
    /// indexed.
    fn parse_and_write(
        &self,
        conn: &mut Connection,
        to_read: Vec<(&Candidate, Option<String>)>,
        summary: &mut Summary,
        invalid: &mut Invalidation,
        profile: &mut Profile,
    ) -> Result<Vec<Skipped>> {
        let parse_cache = self.options.parse_cache.as_ref().map(ParseCache::open);
        let cancel = self.options.cancel.clone().unwrap_or_default();
        let progress = self.options.progress.clone();
        if let Some(p) = &progress {
            p.start(to_read.len() as u64);
        }
        let batch_size = self.options.batch_size.unwrap_or(256).max(1);
        let mut failed: Vec<Skipped> = Vec::new();
        let (sender, receiver) = mpsc::sync_channel::<Outcome>(batch_size * 2);
        let write_result = std::thread::scope(|scope| -> Result<()> {
            let cache = parse_cache.as_ref();
            let cancel = &cancel;
            scope.spawn(move || self.parse_all(&to_read, sender, cache, cancel));
            let mut writer = Writer {
                batch_size,
                pending: Vec::with_capacity(batch_size),
                time: Duration::ZERO,
            };
            let mut sinks = Sinks {
                stored: self.stored,
                summary,
                failed: &mut failed,
                invalid,
            };
            let result = writer.write_all(conn, &receiver, progress.as_deref(), cancel, &mut sinks);
            profile.note("writing batches", writer.time);
            // Hanging up wakes producers blocked on a full channel, so the scope can end.
            drop(receiver);
            result
        });
        if let Some(p) = &progress {
            p.finish();
        }
        write_result?;
        profile.phase("parse and write");
        if let Some(cache) = &parse_cache {
            summary.from_cache = cache.hits.load(Ordering::Relaxed);
            cache.settle();
            profile.phase("parse cache");
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Ok(failed)
    }

    /// The parse workers: a pool of our own, whose workers block on the
    /// channel, which must never stall another user of rayon's global pool.
    fn parse_all(
        &self,
        to_read: &[(&Candidate, Option<String>)],
        sender: mpsc::SyncSender<Outcome>,
        parse_cache: Option<&ParseCache>,
        cancel: &AtomicBool,
    ) {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let work = || {
            to_read
                .par_iter()
                .for_each_with(sender, |sender, (candidate, id)| {
                    let outcome = if cancel.load(Ordering::Relaxed) {
                        Outcome::Cancelled
                    } else {
                        let stored = self.stored.get(&candidate.rel);
                        let id = id.as_deref();
                        process(
                            candidate,
                            id,
                            stored,
                            self.resolver,
                            self.fallbacks,
                            parse_cache,
                        )
                    };
                    // The writer hung up (an error or Ctrl-C): stop quietly.
                    let _ = sender.send(outcome);
                })
        };
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        }
    }

    /// The last transaction: secondary indexes, the calls to resolve, and
    /// the run's metadata; then the totals.
    fn settle(
        &self,
        conn: &mut Connection,
        invalid: &mut Invalidation,
        failed: &[Skipped],
        summary: &mut Summary,
        profile: &mut Profile,
    ) -> Result<()> {
        let now = unix_now();
        let head = self.head.lock().ok().and_then(|mut h| h.take());
        let history = moved_history(conn, self.root, head.and_then(|h| h.join().ok()).flatten())?;
        profile.phase("read history");
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some((head, commits)) = &history {
            store::history::replace(&tx, head.as_deref(), commits)?;
        }
        store::ensure_secondary_indexes(&tx)?;
        profile.phase("secondary indexes");
        let scip = self
            .options
            .scip
            .as_deref()
            .or(self.scip_remembered.as_deref());
        let synced =
            crate::scip::sync(&tx, (self.root, self.config), scip, &invalid.changed_paths)?;
        invalid.all |= synced.all;
        invalid.calls.extend(synced.calls);
        summary.scip_imported = synced.imported;
        summary.scip_stale = synced.newly_stale;
        summary.scip_dropped = synced.dropped;
        summary.scip_unreadable = synced.unreadable;
        profile.phase("SCIP");
        let redeclared = self.redeclared(&tx, invalid)?;
        let resolver = redeclared.as_ref().unwrap_or(self.resolver);
        if !invalid.is_empty() {
            invalid.settle_unwritten();
            summary.resolved_calls = calls::resolve_calls(&tx, resolver, invalid)? as u64;
            profile.phase("resolve calls");
        }
        store::set_meta(&tx, "edges_state", "fresh")?;
        store::set_meta(&tx, "indexed_at", &now.to_string())?;
        store::set_meta(&tx, "root", &self.root.to_string_lossy())?;
        store::set_meta(&tx, "run_state", "complete")?;
        let failed_now: Vec<&str> = failed.iter().map(|f| f.rel.as_str()).collect();
        store::set_meta(&tx, FAILED_CANDIDATES, &failed_now.join("\n"))?;
        let max_file_size = self.config.max_file_size.to_string();
        store::set_meta(&tx, "max_file_size", &max_file_size)?;
        tx.commit()?;
        let totals = files::totals(conn)?;
        summary.files = totals.files;
        summary.definitions = totals.definitions;
        summary.imports = totals.imports;
        summary.calls = totals.calls;
        summary.syntax_errors = totals.syntax_errors;
        summary.unchanged = summary.files.saturating_sub(summary.parsed);
        profile.phase("finish");
        Ok(())
    }
}

impl Run<'_> {
    /// When the files read in this run changed the packages files declare
    /// away from their directories (a new file, a `package` line edited),
    /// every stored import is resolved again against them, so the index is
    /// what a rebuild would make; returns the resolver that knows them.
    fn redeclared(&self, tx: &Transaction, invalid: &mut Invalidation) -> Result<Option<Resolver>> {
        let mut declared = files::declared_packages(tx)?;
        declared.retain(|p| self.resolver.holds(p));
        if &declared == self.resolver.declared() {
            return Ok(None);
        }
        let resolver = self.resolver.with_declared(declared);
        invalid.changed_paths.extend(reresolve_all(tx, &resolver)?);
        Ok(Some(resolver))
    }
}

/// The single writer: outcomes in batches of one transaction each.
struct Writer {
    batch_size: usize,
    pending: Vec<Outcome>,
    time: Duration,
}

impl Writer {
    fn write_all(
        &mut self,
        conn: &mut Connection,
        receiver: &mpsc::Receiver<Outcome>,
        progress: Option<&dyn Progress>,
        cancel: &AtomicBool,
        sinks: &mut Sinks<'_>,
    ) -> Result<()> {
        for outcome in receiver.iter() {
            if matches!(outcome, Outcome::Cancelled) {
                continue;
            }
            if let (Some(p), Some(path)) = (progress, outcome_path(&outcome)) {
                p.advance(path);
            }
            self.pending.push(outcome);
            if self.pending.len() >= self.batch_size {
                self.flush(conn, sinks)?;
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
            }
        }
        if !self.pending.is_empty() {
            self.flush(conn, sinks)?;
        }
        Ok(())
    }

    fn flush(&mut self, conn: &mut Connection, sinks: &mut Sinks<'_>) -> Result<()> {
        let started = Instant::now();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for outcome in self.pending.drain(..) {
            write_outcome(
                &tx,
                outcome,
                sinks.stored,
                sinks.summary,
                sinks.failed,
                sinks.invalid,
            )?;
        }
        tx.commit()?;
        self.time += started.elapsed();
        Ok(())
    }
}

/// What writing outcomes updates.
struct Sinks<'s> {
    stored: &'s HashMap<String, StoredFile>,
    summary: &'s mut Summary,
    failed: &'s mut Vec<Skipped>,
    invalid: &'s mut Invalidation,
}

/// The languages some language falls back to (`cpp` for C) that the
/// repository has files of, space-separated and sorted.
fn fallback_languages_present(candidates: &[Candidate]) -> String {
    let present: HashSet<&str> = candidates
        .iter()
        .filter_map(|c| match c.format {
            Format::Code(spec) => Some(spec.name),
            Format::Doc(_) => None,
        })
        .collect();
    let mut fallbacks: Vec<&str> = present
        .iter()
        .filter_map(|l| lang::by_name(l)?.fallback)
        .filter(|f| present.contains(f))
        .collect();
    fallbacks.sort_unstable();
    fallbacks.dedup();
    fallbacks.join(" ")
}

/// Recomputes every stored import's target against the current file set and
/// writes the ones that changed. Returns the files whose imports changed.
fn reresolve_all(tx: &Transaction, resolver: &Resolver) -> Result<HashSet<String>> {
    let mut changed = HashSet::new();
    for row in files::stored_imports(tx)? {
        let Some(spec) = lang::by_name(&row.lang) else {
            continue;
        };
        let new = resolver.resolve(spec, &row.path, &row.module, row.name.as_deref());
        if new != row.target {
            files::set_import_target(tx, row.id, new.as_deref())?;
            changed.insert(row.path);
        }
    }
    Ok(changed)
}

/// Adds `.evident/` to `.git/info/exclude` so the index never shows up in `git status`.
fn exclude_from_git(root: &Path) {
    let git_dir = root.join(".git");
    if !git_dir.is_dir() {
        return;
    }
    let info = git_dir.join("info");
    let exclude = info.join("exclude");
    let existing = std::fs::read_to_string(&exclude).unwrap_or_default();
    if existing
        .lines()
        .any(|l| l.trim() == ".evident/" || l.trim() == "/.evident/")
    {
        return;
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(".evident/\n");
    // Best effort: a read-only .git must not stop indexing.
    let _ = std::fs::create_dir_all(&info).and_then(|_| std::fs::write(&exclude, text));
}
