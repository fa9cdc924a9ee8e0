//! An indexing run: walk, compare with what is stored, parse what changed in
//! parallel, and write it in batches.
//!
//! Crash safety: every batch is one transaction, and every file's rows are
//! written inside one batch, so a kill at any moment leaves each file either
//! as it was or as it is now, never half of each. Imports are resolved against
//! the set of files the walk found before anything is written, so each batch
//! is consistent with the run's final file set, and the next run resumes
//! where an interrupted one stopped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::graph::calls::{self, Invalidation};
use crate::lang;
use crate::lang::docs;
use crate::lang::extract::{self, FileFacts};
use crate::lang::imports::Resolver;
use crate::search::chunk::{self, Chunk};
use crate::store;
use crate::store::files::{self, NewFile, StoredFile};
use crate::store::parse_cache::{ParseCache, ParseCacheSettings};
use crate::walk::git::{blob_id, GitIdentities};
use crate::walk::{self, Candidate, Format, Skipped};

/// Git's index is asked for file identities when more files than this moved.
const ASK_GIT_PAST: usize = 32;

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
    /// Drop the existing index and build it from scratch.
    pub rebuild: bool,
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
    /// Whether the index was created by this run.
    pub created: bool,
}

enum Outcome {
    /// Same content as stored: only the stat data changes.
    Touched {
        rel: String,
        id: i64,
        size: u64,
        mtime_ns: i64,
        /// Whether the content was read to find that out.
        read: bool,
    },
    Parsed(Box<Parsed>),
    Failed(Skipped),
    Cancelled,
}

struct Parsed {
    rel: String,
    lang: &'static str,
    hash: String,
    size: u64,
    mtime_ns: i64,
    facts: FileFacts,
    targets: Vec<Option<String>>,
    chunks: Vec<Chunk>,
}

/// Meta key: the files the last complete run walked but could not index
/// (binary, unreadable), one per line: part of its file set, not of its rows.
const FAILED_CANDIDATES: &str = "failed_candidates";

/// Brings `<root>/.evident/index.db` up to date with the files under `root`.
pub fn index_repo(root: &Path, options: &IndexOptions) -> Result<Summary> {
    let started = Instant::now();
    let mut profile = Profile::new(started);
    if !root.exists() {
        return Err(Error::NoSuchPath(root.to_path_buf()));
    }
    if !root.is_dir() {
        return Err(Error::NotADirectory(root.to_path_buf()));
    }
    let root = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let mut config = Config::load(&root)?;
    if let Some(limit) = options.max_file_size {
        config.max_file_size = limit;
    }
    // One indexing run at a time per repository: a second one waits here, then
    // finds the index up to date. (Readers never wait: WAL.)
    let run_lock = store::lock_for_indexing(&root)?;
    if options.rebuild {
        store::remove_index(&root)?;
    }
    // A new index of a repository another worktree has indexed starts as a
    // copy of that one: then only the files that differ are parsed.
    let mut seeded_from = None;
    if !options.rebuild && !store::index_path(&root).exists() {
        seeded_from = walk::git::sibling_indexes(&root)
            .into_iter()
            .find(|sibling| store::seed_from(&root, sibling).is_ok());
        profile.phase("seed from a sibling worktree");
    }
    let (mut conn, created) = store::open_for_write(&root)?;
    if created || seeded_from.is_some() {
        exclude_from_git(&root);
    }

    // Compiling a language's query takes ~10-15 ms; do it while the walk runs.
    // Not joined: a worker that needs a query before it is ready waits on its OnceLock.
    {
        let langs: Vec<&'static lang::LanguageSpec> = files::stored_languages(&conn)?
            .iter()
            .filter_map(|l| lang::by_name(l))
            .collect();
        std::thread::spawn(move || {
            for l in &langs {
                let _ = l.query();
            }
        });
    }
    let walked = walk::walk(&root, &config);
    profile.phase("walk");
    let stored = files::stored_files(&conn)?;
    profile.phase("read stored files");
    let present: HashSet<&str> = walked.candidates.iter().map(|c| c.rel.as_str()).collect();
    let removed: Vec<(&String, i64)> = stored
        .iter()
        .filter(|(path, _)| !present.contains(path.as_str()))
        .map(|(path, s)| (path, s.id))
        .collect();
    // Files the last run could not index (binary, unreadable) were in its
    // file set too: seen again, they add nothing to it.
    let failed_before = store::meta(&conn, FAILED_CANDIDATES)?.unwrap_or_default();
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
        GitIdentities::read(&root).unwrap_or_default()
    } else {
        GitIdentities::default()
    };
    let to_read: Vec<(&Candidate, Option<&str>)> = moved
        .into_iter()
        .map(|c| (c, identities.get(&c.rel)))
        .collect();
    let resolver = Resolver::new(present.iter().copied(), &root);
    profile.phase("compare (and git's identities), resolver");
    // Rust qualified names start with the crate's name from its Cargo.toml,
    // and imports resolve through go.mod, tsconfig.json paths and workspace
    // packages: when one of those changes, every stored name and import may
    // be wrong, so the index is built again (rare, and always right).
    // Whether a `.h` with syntax errors is tried as C++ depends on whether the
    // repository has C++ files: when that changes, so may every header.
    let fallbacks = fallback_languages_present(&walked.candidates);
    let layout = format!("{}\nfallbacks {fallbacks}", resolver.layout_signature());
    if store::meta(&conn, "layout")?.unwrap_or_default() != layout {
        if !created && !options.rebuild {
            drop(conn);
            drop(run_lock);
            let again = IndexOptions {
                rebuild: true,
                ..options.clone()
            };
            return index_repo(&root, &again);
        }
        store::set_meta(&conn, "layout", &layout)?;
        store::set_meta(&conn, "fallback_languages", &fallbacks)?;
    }

    profile.phase("walk and compare");

    // First transaction: forget removed files, record skips, and re-resolve
    // stored imports when the file set changed (a new file can satisfy an
    // import, a deleted one can break it).
    let file_set_changed = added > 0 || !removed.is_empty() || failed_gone;
    let skips_changed = files::skipped(&conn)? != walked.skipped;
    // Edges are resolved after every batch is written; a run that stopped
    // before that leaves them stale, and the next run resolves them all.
    let mut invalid = Invalidation {
        all: created || store::meta(&conn, "edges_state")?.as_deref() != Some("fresh"),
        ..Invalidation::default()
    };
    if file_set_changed || skips_changed || !to_read.is_empty() {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        store::set_meta(&tx, "edges_state", "stale")?;
        for (path, id) in &removed {
            invalid.note_old_rows(&tx, *id, path)?;
            files::delete_file(&tx, *id)?;
        }
        files::clear_skipped(&tx)?;
        for s in &walked.skipped {
            files::insert_skipped(&tx, s)?;
        }
        if file_set_changed {
            // Calls in files whose imports now point elsewhere may resolve differently.
            invalid.changed_paths.extend(reresolve_all(&tx, &resolver)?);
        }
        store::set_meta(&tx, "run_state", "in_progress")?;
        tx.commit()?;
    }
    profile.phase("removals and re-resolution");

    let parse_cache = options.parse_cache.as_ref().map(ParseCache::open);
    let cancel = options.cancel.clone().unwrap_or_default();
    let progress = options.progress.clone();
    if let Some(p) = &progress {
        p.start(to_read.len() as u64);
    }
    let batch_size = options.batch_size.unwrap_or(256).max(1);
    let mut summary = Summary {
        root: root.clone(),
        removed: removed.len() as u64,
        added: added as u64,
        created,
        seeded_from,
        ..Summary::default()
    };
    let mut failed: Vec<Skipped> = Vec::new();
    let (sender, receiver) = mpsc::sync_channel::<Outcome>(batch_size * 2);
    let write_result = std::thread::scope(|scope| -> Result<()> {
        let stored = &stored;
        let resolver = &resolver;
        let fallbacks = fallbacks.as_str();
        let cancel_flag = &cancel;
        let parse_cache = parse_cache.as_ref();
        scope.spawn(move || {
            // A pool of our own: its workers block on the channel, which must
            // never stall another user of rayon's global pool.
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            let work = || {
                to_read
                    .par_iter()
                    .for_each_with(sender, |sender, (candidate, id)| {
                        let outcome = if cancel_flag.load(Ordering::Relaxed) {
                            Outcome::Cancelled
                        } else {
                            let stored = stored.get(&candidate.rel);
                            process(candidate, *id, stored, resolver, fallbacks, parse_cache)
                        };
                        // The writer hung up (an error or Ctrl-C): stop quietly.
                        let _ = sender.send(outcome);
                    })
            };
            match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                Ok(pool) => pool.install(work),
                Err(_) => work(),
            }
        });
        let mut pending: Vec<Outcome> = Vec::with_capacity(batch_size);
        let mut write_time = Duration::ZERO;
        let mut flush = |conn: &mut Connection,
                         pending: &mut Vec<Outcome>,
                         summary: &mut Summary|
         -> Result<()> {
            let started = Instant::now();
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for outcome in pending.drain(..) {
                write_outcome(&tx, outcome, stored, summary, &mut failed, &mut invalid)?;
            }
            tx.commit()?;
            write_time += started.elapsed();
            Ok(())
        };
        let mut write_all = || -> Result<()> {
            for outcome in receiver.iter() {
                if matches!(outcome, Outcome::Cancelled) {
                    continue;
                }
                if let (Some(p), Some(path)) = (&progress, outcome_path(&outcome)) {
                    p.advance(path);
                }
                pending.push(outcome);
                if pending.len() >= batch_size {
                    flush(&mut conn, &mut pending, &mut summary)?;
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                }
            }
            if !pending.is_empty() {
                flush(&mut conn, &mut pending, &mut summary)?;
            }
            Ok(())
        };
        let result = write_all();
        profile.note("writing batches", write_time);
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

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        store::ensure_secondary_indexes(&tx)?;
        if !invalid.is_empty() {
            invalid.settle_unwritten();
            summary.resolved_calls = calls::resolve_calls(&tx, &resolver, &invalid)? as u64;
            profile.phase("resolve calls");
        }
        store::set_meta(&tx, "edges_state", "fresh")?;
        store::set_meta(&tx, "indexed_at", &now.to_string())?;
        store::set_meta(&tx, "root", &root.to_string_lossy())?;
        store::set_meta(&tx, "run_state", "complete")?;
        let failed_now: Vec<&str> = failed.iter().map(|f| f.rel.as_str()).collect();
        store::set_meta(&tx, FAILED_CANDIDATES, &failed_now.join("\n"))?;
        store::set_meta(&tx, "max_file_size", &config.max_file_size.to_string())?;
        tx.commit()?;
    }
    let totals = files::totals(&conn)?;
    summary.files = totals.files;
    summary.definitions = totals.definitions;
    summary.imports = totals.imports;
    summary.calls = totals.calls;
    summary.syntax_errors = totals.syntax_errors;
    summary.unchanged = summary.files.saturating_sub(summary.parsed);
    profile.phase("finish");
    summary.skipped = walked.skipped;
    summary.skipped.extend(failed);
    summary.skipped.sort_by(|a, b| a.rel.cmp(&b.rel));
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Phase timings on stderr when `EVIDENT_PROFILE` is set (used by the benchmarks).
struct Profile {
    enabled: bool,
    last: Instant,
}

impl Profile {
    fn new(started: Instant) -> Profile {
        Profile {
            enabled: std::env::var_os("EVIDENT_PROFILE").is_some(),
            last: started,
        }
    }

    fn note(&self, name: &str, took: Duration) {
        if self.enabled {
            eprintln!(
                "profile:   of which {name}: {:.1} ms",
                took.as_secs_f64() * 1e3
            );
        }
    }

    fn phase(&mut self, name: &str) {
        if self.enabled {
            eprintln!(
                "profile: {name}: {:.1} ms",
                self.last.elapsed().as_secs_f64() * 1e3
            );
        }
        self.last = Instant::now();
    }
}

fn outcome_path(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Parsed(p) => Some(&p.rel),
        Outcome::Failed(s) => Some(&s.rel),
        Outcome::Touched { rel, .. } => Some(rel),
        Outcome::Cancelled => None,
    }
}

/// Reads, identifies and (when the content changed) parses one file. `known`
/// is its blob id when git's index vouches for the working copy: a file whose
/// id is the stored one is not read at all. A file the parse cache has facts
/// for (same build, path and bytes) is not parsed.
fn process(
    candidate: &Candidate,
    known: Option<&str>,
    stored: Option<&StoredFile>,
    resolver: &Resolver,
    fallbacks: &str,
    parse_cache: Option<&ParseCache>,
) -> Outcome {
    let touched = |s: &StoredFile, size: u64, read: bool| Outcome::Touched {
        rel: candidate.rel.clone(),
        id: s.id,
        size,
        mtime_ns: candidate.mtime_ns,
        read,
    };
    if let (Some(id), Some(s)) = (known, stored) {
        if s.hash == id {
            return touched(s, candidate.size, false);
        }
    }
    let skip = |reason: String| {
        Outcome::Failed(Skipped {
            rel: candidate.rel.clone(),
            reason,
        })
    };
    let bytes = match std::fs::read(&candidate.abs) {
        Ok(bytes) => bytes,
        Err(e) => return skip(format!("unreadable: {e}")),
    };
    if crate::snippet::looks_binary(&bytes) {
        return skip("binary (NUL bytes)".into());
    }
    let hash = known.map_or_else(|| blob_id(&bytes), str::to_string);
    let size = bytes.len() as u64;
    if let Some(s) = stored.filter(|s| s.hash == hash) {
        return touched(s, size, true);
    }
    // Not UTF-8 (Latin-1 sources, stray bytes): index what decodes, keep line numbers.
    let source = String::from_utf8_lossy(&bytes);
    let (facts, targets, chunks) = match candidate.format {
        Format::Code(spec) => {
            let context = extract::Context {
                crate_name: resolver.rust_crate_name(&candidate.rel),
                fallback_present: spec
                    .fallback
                    .is_some_and(|f| fallbacks.split(' ').any(|l| l == f)),
            };
            let extract = || extract::extract_in(spec, &candidate.rel, &source, &context);
            let facts = match parse_cache {
                Some(cache) => {
                    let key = cache.key(spec.name, &candidate.rel, &hash, &context);
                    cache.get(&key).unwrap_or_else(|| {
                        let facts = extract();
                        cache.put(&key, &facts);
                        facts
                    })
                }
                None => extract(),
            };
            let targets = facts
                .imports
                .iter()
                .map(|i| resolver.resolve(spec, &candidate.rel, &i.module, i.name.as_deref()))
                .collect();
            let chunks = chunk::chunks(&facts, &candidate.rel, &source);
            (facts, targets, chunks)
        }
        // A document has sections (chunks), never symbols: no call may resolve to a heading.
        Format::Doc(format) => {
            let facts = FileFacts {
                line_count: source.lines().count() as u32,
                ..FileFacts::default()
            };
            (
                facts,
                Vec::new(),
                docs::chunks(format, &candidate.rel, &source),
            )
        }
    };
    Outcome::Parsed(Box::new(Parsed {
        rel: candidate.rel.clone(),
        lang: facts.read_as.unwrap_or(candidate.format.name()),
        hash,
        size,
        mtime_ns: candidate.mtime_ns,
        facts,
        targets,
        chunks,
    }))
}

fn write_outcome(
    tx: &Transaction,
    outcome: Outcome,
    stored: &HashMap<String, StoredFile>,
    summary: &mut Summary,
    failed: &mut Vec<Skipped>,
    invalid: &mut Invalidation,
) -> Result<()> {
    match outcome {
        Outcome::Touched {
            id,
            size,
            mtime_ns,
            read,
            ..
        } => {
            files::touch_file(tx, id, size, mtime_ns)?;
            summary.read += u64::from(read);
        }
        Outcome::Failed(skipped) => {
            // A file that can no longer be read leaves the index rather than
            // keeping rows that no longer match it.
            if let Some(s) = stored.get(&skipped.rel) {
                invalid.note_old_rows(tx, s.id, &skipped.rel)?;
                files::delete_file(tx, s.id)?;
                summary.removed += 1;
            }
            files::insert_skipped(tx, &skipped)?;
            failed.push(skipped);
        }
        Outcome::Parsed(parsed) => {
            let existing = stored.get(&parsed.rel).map(|s| s.id);
            if let Some(id) = existing {
                invalid.note_old_rows(tx, id, &parsed.rel)?;
            }
            if let Some(line) = parsed.facts.symbols_end_line {
                summary.in_part.push(Skipped {
                    rel: parsed.rel.clone(),
                    reason: format!(
                        "symbols from lines 1-{} only (over {} definitions or calls); \
                         the rest is searched as text",
                        line.saturating_sub(1),
                        extract::MAX_FACTS_PER_FILE
                    ),
                });
            }
            let defined = parsed.facts.definitions.iter().map(|d| d.name.as_str());
            invalid.note_new_definitions(&parsed.rel, defined);
            invalid.note_new_flow(&parsed.rel, &parsed.facts);
            let new = NewFile {
                rel: &parsed.rel,
                lang: parsed.lang,
                hash: &parsed.hash,
                size: parsed.size,
                mtime_ns: parsed.mtime_ns,
                facts: &parsed.facts,
                targets: &parsed.targets,
                chunks: &parsed.chunks,
            };
            files::write_file(tx, &new, existing)?;
            if let Some(id) = existing {
                invalid.note_written(tx, id, &parsed.rel)?;
            }
            summary.parsed += 1;
            summary.read += 1;
        }
        Outcome::Cancelled => {}
    }
    Ok(())
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
