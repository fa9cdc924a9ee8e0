//! Keeping the index fresh under a long-running server: a cheap stat pass
//! before a call (at most one per interval, shared by concurrent calls), an
//! incremental index run in a thread of its own when it finds a change, and a
//! bounded wait for that run so a large repository still answers, from the
//! index it has, saying the answer may be stale. After each run, the chunks
//! it added or changed are embedded in the same thread.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::watch::Watch;
use crate::EmbedderHandle;
use evident_index::{
    embed_chunks, index_repo, EmbedOptions, IndexOptions, Progress, StatSnapshot, WalkMemory,
};
use tokio::sync::watch;

/// How the index stood when a call was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Freshness {
    Fresh,
    /// A refresh is running; the answer comes from the index as it was.
    Refreshing {
        reason: String,
        done: u64,
        total: u64,
    },
    /// The last refresh failed; the answer comes from the last good index.
    Failed(String),
}

/// What an answer from a stale index says about it (MCP's notes, the web's
/// banner); `None` when the index is fresh.
pub fn stale_note(freshness: &Freshness) -> Option<String> {
    match freshness {
        Freshness::Fresh => None,
        Freshness::Refreshing {
            reason,
            done,
            total,
        } => Some(format!(
            "note: the index is being refreshed ({reason}; {done} of {total} files read); this answer comes from the index as it was and may be stale"
        )),
        Freshness::Failed(error) => Some(format!(
            "note: refreshing the index failed ({error}); this answer comes from the last complete index and may be stale"
        )),
    }
}

/// Where the server's log lines go (stderr, or a file): never stdout. Each
/// line starts with the command that writes it.
#[derive(Clone)]
pub struct Log(Arc<Mutex<Box<dyn Write + Send>>>, &'static str);

impl Log {
    pub fn stderr() -> Log {
        Log::to(Box::new(std::io::stderr()))
    }

    pub fn to(writer: Box<dyn Write + Send>) -> Log {
        Log(Arc::new(Mutex::new(writer)), "evident mcp")
    }

    /// The same log, its lines headed by `command` (`evident serve`).
    pub fn headed(self, command: &'static str) -> Log {
        Log(self.0, command)
    }

    pub fn line(&self, message: &str) {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(out, "{}: {message}", self.1);
        let _ = out.flush();
    }
}

/// Reports an index run's progress to whoever waits on it.
pub trait ProgressSink: Send {
    fn report(&mut self, done: u64, total: u64);
}

#[derive(Default)]
struct RunProgress {
    total: AtomicU64,
    done: AtomicU64,
}

impl Progress for RunProgress {
    fn start(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }
    fn advance(&self, _path: &str) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
    fn finish(&self) {}
}

struct Run {
    reason: String,
    finished: watch::Receiver<bool>,
    progress: Arc<RunProgress>,
}

#[derive(Default)]
struct State {
    snapshot: Option<Arc<StatSnapshot>>,
    last_check: Option<Instant>,
    running: Option<Run>,
    /// Whether any index run has completed (or an index existed at start).
    has_index: bool,
    last_error: Option<String>,
}

/// How long after a failed run (a broken `evident.toml`, say) the next one starts.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(2);

pub struct Refresher {
    root: PathBuf,
    /// Embeds the chunks each run added or changed, after the run (the
    /// search service's embedder; `None` without one).
    embedder: Option<EmbedderHandle>,
    /// The longest a call waits for a refresh before answering from the old index.
    wait: Duration,
    /// The least time between two stat passes.
    interval: Duration,
    log: Log,
    state: Mutex<State>,
    /// The files' watcher, when the system gives one: a call then asks it
    /// what changed instead of a stat pass, and a run walks only that.
    watch: Option<Mutex<Watch>>,
    memory: Arc<Mutex<WalkMemory>>,
}

/// The longest a call waits for the watcher to note the changes made
/// before it; past that, it takes the stat pass.
const CATCH_UP: Duration = Duration::from_millis(200);

impl Refresher {
    pub fn new(
        root: PathBuf,
        embedder: Option<EmbedderHandle>,
        wait: Duration,
        interval: Duration,
        log: Log,
    ) -> Arc<Refresher> {
        let has_index = evident_index::store::index_path(&root).exists();
        let memory = Arc::new(Mutex::new(WalkMemory::default()));
        let watch = match Watch::start(&root, memory.clone(), || {}) {
            Ok(watch) => Some(Mutex::new(watch)),
            Err(e) => {
                log.line(&format!(
                    "not watching files ({e}): each call takes a stat pass"
                ));
                None
            }
        };
        Arc::new(Refresher {
            root,
            embedder,
            wait,
            interval,
            log,
            state: Mutex::new(State {
                has_index,
                ..State::default()
            }),
            watch,
            memory,
        })
    }

    /// Starts the first run: the index may be missing, or older than the
    /// files (nothing watched them while no server ran).
    pub fn start(self: &Arc<Self>) {
        let reason = if self.lock().has_index {
            "catching up with changes made while no server ran"
        } else {
            "first use: building the index"
        };
        self.clone().spawn_run(&mut self.lock(), reason.to_string());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Brings the index up to date before a call, as far as the wait allows.
    pub async fn before_call(
        self: &Arc<Self>,
        mut progress: Option<Box<dyn ProgressSink>>,
    ) -> Freshness {
        let snapshot = {
            let mut state = self.lock();
            let since_check = state.last_check.map(|t| t.elapsed());
            match &state.snapshot {
                _ if state.running.is_some() => None,
                // With a watcher, every call asks it (no interval: it costs
                // a marker file's write).
                Some(_) if self.watch.is_some() => None,
                Some(snapshot) if since_check.is_none_or(|t| t >= self.interval) => {
                    let snapshot = snapshot.clone();
                    state.last_check = Some(Instant::now());
                    Some(snapshot)
                }
                // No snapshot: the last run failed; try again now and then.
                None if since_check.is_none_or(|t| t >= RETRY_AFTER_FAILURE) => {
                    self.clone()
                        .spawn_run(&mut state, "retrying after a failed run".into());
                    None
                }
                _ => None,
            }
        };
        let watched = self.lock().snapshot.is_some() && self.watch.is_some();
        let changed = if watched {
            let refresher = self.clone();
            tokio::task::spawn_blocking(move || refresher.changes_seen())
                .await
                .ok()
                .flatten()
        } else if let Some(snapshot) = snapshot {
            tokio::task::spawn_blocking(move || snapshot.changed().map(|p| p.display().to_string()))
                .await
                .ok()
                .flatten()
        } else {
            None
        };
        if let Some(path) = changed {
            let mut state = self.lock();
            if state.running.is_none() {
                self.clone()
                    .spawn_run(&mut state, format!("{path} changed"));
            }
        }
        let (mut finished, run_progress, reason, has_index) = {
            let state = self.lock();
            match &state.running {
                Some(run) => (
                    run.finished.clone(),
                    run.progress.clone(),
                    run.reason.clone(),
                    state.has_index,
                ),
                None => return self.settled(&state),
            }
        };
        // Without an index there is nothing to answer from: wait it out.
        let deadline = (has_index).then(|| tokio::time::Instant::now() + self.wait);
        loop {
            let tick = tokio::time::Instant::now() + Duration::from_millis(500);
            let until = deadline.map_or(tick, |d| d.min(tick));
            match tokio::time::timeout_at(until, finished.wait_for(|done| *done)).await {
                Ok(_) => return self.settled(&self.lock()),
                Err(_) if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) => {
                    return Freshness::Refreshing {
                        reason,
                        done: run_progress.done.load(Ordering::Relaxed),
                        total: run_progress.total.load(Ordering::Relaxed),
                    };
                }
                Err(_) => {
                    if let Some(sink) = progress.as_mut() {
                        sink.report(
                            run_progress.done.load(Ordering::Relaxed),
                            run_progress.total.load(Ordering::Relaxed),
                        );
                    }
                }
            }
        }
    }

    /// A path the watcher saw change since the index was written, checked
    /// against the stat data of the changed paths only; without the
    /// watcher's word that it caught up, the stat pass answers.
    fn changes_seen(&self) -> Option<String> {
        let caught_up = (self.watch.as_ref()).is_some_and(|w| {
            w.lock()
                .unwrap_or_else(|e| e.into_inner())
                .catch_up(CATCH_UP)
        });
        if !caught_up {
            let snapshot = self.lock().snapshot.clone()?;
            return snapshot.changed().map(|p| p.display().to_string());
        }
        if !self.memory.lock().is_ok_and(|m| m.has_changes()) {
            return None;
        }
        let index = evident_index::Index::open(&self.root).ok()?;
        let stale = index.staleness_with(Some(&self.memory)).ok()?;
        (stale.modified.iter())
            .chain(&stale.added)
            .chain(&stale.deleted)
            .next()
            .cloned()
    }

    fn settled(&self, state: &State) -> Freshness {
        match &state.last_error {
            Some(error) => Freshness::Failed(error.clone()),
            None => Freshness::Fresh,
        }
    }

    fn spawn_run(self: Arc<Self>, state: &mut State, reason: String) {
        let (done, finished) = watch::channel(false);
        let progress = Arc::new(RunProgress::default());
        self.log.line(&format!("refreshing the index: {reason}"));
        state.running = Some(Run {
            reason,
            finished,
            progress: progress.clone(),
        });
        std::thread::spawn(move || {
            let started_at = SystemTime::now();
            let started = Instant::now();
            // The user's parse cache, as `evident index` uses it (a broken
            // settings file fails the run below, with its message).
            let parse_cache = evident_index::Settings::load(&self.root)
                .ok()
                .and_then(|s| evident_index::ParseCacheSettings::for_user(s.cache.max_mib));
            let options = IndexOptions {
                progress: Some(progress),
                parse_cache,
                walk_memory: self.watch.is_some().then(|| self.memory.clone()),
                ..IndexOptions::default()
            };
            // A panic must not leave the run marked as running forever.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                index_repo(&self.root, &options)
                    .and_then(|summary| Ok((summary, StatSnapshot::take(&self.root, started_at)?)))
                    .map_err(|e| e.to_string())
            }))
            .unwrap_or_else(|_| Err("the indexer failed unexpectedly".into()));
            let mut state = self.lock();
            let indexed = result.is_ok();
            match result {
                Ok((summary, snapshot)) => {
                    self.log.line(&format!(
                        "index up to date: {} files, {} parsed, {} removed in {:.0} ms",
                        summary.files,
                        summary.parsed,
                        summary.removed,
                        started.elapsed().as_secs_f64() * 1e3
                    ));
                    state.snapshot = Some(Arc::new(snapshot));
                    state.has_index = true;
                    state.last_error = None;
                }
                Err(error) => {
                    self.log
                        .line(&format!("refreshing the index failed: {error}"));
                    state.last_error = Some(error);
                }
            }
            // The next stat pass waits a full interval after a run.
            state.last_check = Some(Instant::now());
            state.running = None;
            drop(state);
            let _ = done.send(true);
            if indexed {
                self.embed_new_chunks();
            }
        });
    }

    /// Embeds what the run added or changed. Calls are answered meanwhile:
    /// search uses the vectors there are.
    fn embed_new_chunks(&self) {
        let Some(embedder) = &self.embedder else {
            return;
        };
        let started = Instant::now();
        match embed_chunks(&self.root, embedder, &EmbedOptions::default()) {
            Ok(summary) if summary.embedded > 0 => self.log.line(&format!(
                "embedded {} chunks in {:.0} ms; {} have vectors",
                summary.embedded,
                started.elapsed().as_secs_f64() * 1e3,
                summary.with_vectors
            )),
            Ok(_) => {}
            Err(error) => self.log.line(&format!(
                "embedding stopped ({error}); search uses the vectors there are"
            )),
        }
    }
}
