//! The daemon itself: a socket accepted on a small tokio runtime, a file
//! watcher, and one worker thread that owns the open index and runs the
//! requests one at a time (a command's output capture and working directory
//! are per process or per thread, so one at a time is what keeps them apart).

use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use clap::Parser;
use evident_agent::watch::Watch;
use evident_index::store::{checkpoint_log, keep_log, LogKeeper};
use evident_index::{Index, WalkMemory};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;

use super::protocol::{
    build_identity, forwarded_env, lock_path, run_args, socket_path, Answer, Ask, DaemonStatus,
    Execute, Request,
};
use crate::cli::{Cli, DaemonRunArgs};
use crate::console::Captured;
use crate::resident::{with_index, with_walk_memory};

/// File events this close together are one change: the index is brought up
/// to date once they stop (or when a request comes first).
const SETTLE: Duration = Duration::from_millis(200);

/// The longest a request waits for an index run before it is answered
/// from the index as it is (as a one-shot command would answer).
const UPDATE_WAIT: Duration = Duration::from_secs(2);

/// The longest a request waits for the watcher to note the changes made
/// before it; past that, the request checks the files' stat data.
const CATCH_UP: Duration = Duration::from_millis(200);

/// A request line longer than this is not ours.
const MAX_REQUEST_BYTES: u64 = 1 << 20;

enum Message {
    /// Something under the root changed (or the watcher lost events).
    Changed,
    Request(Request, oneshot::Sender<Answer>),
}

/// `evident daemon run`: serves until idle, stopped, or replaced.
pub fn run(root: &Path, args: &DaemonRunArgs, execute: Execute) -> Result<ExitCode> {
    std::fs::create_dir_all(root.join(".evident"))?;
    let _lock = hold_lock(root)?;
    let socket = socket_path(root);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let listener = runtime.block_on(listen_at(&socket))?;
    let (messages, inbox) = mpsc::channel();
    let (done, finished) = oneshot::channel();
    let watcher_messages = messages.clone();
    let watched_root = root.to_path_buf();
    let args = args.clone();
    let worker = std::thread::spawn(move || {
        let memory = Arc::new(Mutex::new(WalkMemory::default()));
        let watch = Watch::start(&watched_root, memory.clone(), move || {
            let _ = watcher_messages.send(Message::Changed);
        })
        .inspect_err(|e| eprintln!("not watching files ({e}): each request checks them"))
        .ok();
        let worker = Worker::new(watched_root, args, memory, watch, execute);
        worker.serve(inbox);
        let _ = done.send(());
    });
    eprintln!("daemon {} serving {}", std::process::id(), root.display());
    runtime.block_on(accept(listener, messages, finished));
    let _ = std::fs::remove_file(&socket);
    let _ = worker.join();
    eprintln!("daemon {} stopped", std::process::id());
    Ok(ExitCode::SUCCESS)
}

/// Listens under a name of its own, then renames the socket into place: a
/// client never meets a socket that is bound but not yet listening (it
/// would be refused, and take it for a dead daemon's). The name is no
/// longer than the final one, so a path that fits a socket's fits both.
async fn listen_at(socket: &Path) -> Result<tokio::net::UnixListener> {
    let starting = socket.with_file_name(format!("s{}", std::process::id()));
    let _ = std::fs::remove_file(&starting);
    let listener = tokio::net::UnixListener::bind(&starting)
        .with_context(|| format!("listening on {}", starting.display()))?;
    std::fs::rename(&starting, socket)
        .with_context(|| format!("placing the socket at {}", socket.display()))?;
    Ok(listener)
}

/// One daemon per repository: an exclusive lock on `.evident/daemon.lock`,
/// held for the process's life. Waits a little for one that is stopping.
fn hold_lock(root: &Path) -> Result<std::fs::File> {
    let file = std::fs::File::create(lock_path(root))?;
    let started = Instant::now();
    // SAFETY: flock on a descriptor this function owns.
    while unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        if started.elapsed() > Duration::from_secs(10) {
            bail!("a daemon already runs for {}", root.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(file)
}

/// Accepts connections until the worker finishes, then lets the answers
/// in flight be written.
async fn accept(
    listener: tokio::net::UnixListener,
    messages: mpsc::Sender<Message>,
    mut finished: oneshot::Receiver<()>,
) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut finished => break,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    connections.spawn(connection(stream, messages.clone()));
                }
            }
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
}

/// One request line in, one answer line out.
async fn connection(stream: tokio::net::UnixStream, messages: mpsc::Sender<Message>) {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    let mut reader = BufReader::new(tokio::io::AsyncReadExt::take(read, MAX_REQUEST_BYTES));
    if reader.read_line(&mut line).await.is_err() {
        return;
    }
    let answer = match serde_json::from_str::<Request>(&line) {
        Ok(request) => {
            let (reply, answered) = oneshot::channel();
            if messages.send(Message::Request(request, reply)).is_err() {
                return;
            }
            match answered.await {
                Ok(answer) => answer,
                Err(_) => return,
            }
        }
        Err(e) => Answer::Refused {
            reason: format!("not a request: {e}"),
            replace: false,
            run_args: Vec::new(),
        },
    };
    let Ok(mut text) = serde_json::to_string(&answer) else {
        return;
    };
    text.push('\n');
    let _ = write.write_all(text.as_bytes()).await;
    let _ = write.shutdown().await;
}

/// The request loop's state: the open index, and whether files changed since it was brought up to date.
struct Worker {
    root: PathBuf,
    build: String,
    env: Vec<(String, String)>,
    idle: Duration,
    args: DaemonRunArgs,
    started_at: u64,
    index: Option<Rc<Index>>,
    /// Held for the daemon's life, so that a run's end copies no log.
    log: Option<LogKeeper>,
    changed: bool,
    last_change: Instant,
    last_request: Instant,
    requests: u64,
    updates: u64,
    unconfirmed: u64,
    execute: Execute,
    watch: Option<Watch>,
    /// The index run in progress: its end is heard here.
    updating: Option<mpsc::Receiver<()>>,
    /// The embedding of the last run's new chunks, which follows the run
    /// on its thread: requests do not wait for it, the next run does.
    embedding: Option<mpsc::Receiver<()>>,
    /// The last walk (of a check or an index run), and the paths the
    /// watcher saw change since: a check walks only those.
    memory: Arc<Mutex<WalkMemory>>,
}

impl Worker {
    fn new(
        root: PathBuf,
        args: DaemonRunArgs,
        memory: Arc<Mutex<WalkMemory>>,
        watch: Option<Watch>,
        execute: Execute,
    ) -> Worker {
        Worker {
            root,
            build: build_identity(),
            env: forwarded_env(),
            idle: Duration::from_secs(args.idle_timeout),
            args,
            started_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            index: None,
            log: None,
            changed: true,
            last_change: Instant::now(),
            last_request: Instant::now(),
            requests: 0,
            updates: 0,
            unconfirmed: 0,
            watch,
            memory,
            updating: None,
            embedding: None,
            execute,
        }
    }

    fn serve(mut self, inbox: mpsc::Receiver<Message>) {
        // Files may have changed before the watcher started; and the check
        // leaves the walk the next ones start from.
        self.bring_up_to_date(Duration::ZERO);
        loop {
            let wait = if self.changed || self.updating.is_some() {
                SETTLE
            } else {
                self.idle.saturating_sub(self.last_request.elapsed())
            };
            match inbox.recv_timeout(wait) {
                Ok(Message::Changed) => {
                    self.changed = true;
                    self.last_change = Instant::now();
                }
                Ok(Message::Request(request, reply)) => {
                    self.last_request = Instant::now();
                    let (answer, stop) = self.answer(request);
                    let _ = reply.send(answer);
                    if stop {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if self.updating.is_some()
                        || (self.changed && self.last_change.elapsed() >= SETTLE)
                    {
                        self.bring_up_to_date(Duration::ZERO);
                    }
                    if self.last_request.elapsed() >= self.idle {
                        eprintln!("idle for {} s: stopping", self.idle.as_secs());
                        return;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    /// The answer, and whether the daemon stops after sending it.
    fn answer(&mut self, request: Request) -> (Answer, bool) {
        // Status and stop are answered to any build; a command only to this one.
        if request.build != self.build && matches!(request.ask, Ask::Command { .. }) {
            eprintln!("a client of another build asked: stopping");
            let refused = Answer::Refused {
                reason: "the daemon is another build of evident".into(),
                replace: true,
                run_args: run_args(&self.args),
            };
            return (refused, true);
        }
        match request.ask {
            Ask::Status => (Answer::Status(self.status()), false),
            Ask::Stop => (Answer::Stopping, true),
            Ask::Command {
                root,
                cwd,
                env,
                args,
            } => (self.run_command(&root, &cwd, &env, args), false),
        }
    }

    fn status(&self) -> DaemonStatus {
        DaemonStatus {
            pid: std::process::id(),
            root: self.root.display().to_string(),
            build: self.build.clone(),
            started_at: self.started_at,
            idle_timeout_s: self.idle.as_secs(),
            no_embed: self.args.no_embed,
            watching: self.watch.is_some(),
            requests: self.requests,
            updates: self.updates,
            unconfirmed: self.unconfirmed,
        }
    }

    fn run_command(
        &mut self,
        root: &str,
        cwd: &str,
        env: &[(String, String)],
        args: Vec<String>,
    ) -> Answer {
        let refuse = |reason: &str| Answer::Refused {
            reason: reason.to_string(),
            replace: false,
            run_args: Vec::new(),
        };
        if Path::new(root) != self.root {
            return refuse("the daemon serves another repository");
        }
        if env != self.env {
            return refuse("the client's environment differs from the daemon's");
        }
        if std::env::set_current_dir(cwd).is_err() {
            return refuse("the client's working directory is gone");
        }
        let Ok(cli) = Cli::try_parse_from(std::iter::once("evident".to_string()).chain(args))
        else {
            return refuse("the command line does not parse here");
        };
        // What changed before the request is noted before it is answered.
        let caught_up = self.watch.as_mut().is_some_and(|w| w.catch_up(CATCH_UP));
        self.unconfirmed += u64::from(self.watch.is_some() && !caught_up);
        if !caught_up || self.memory.lock().is_ok_and(|m| m.has_changes()) {
            self.index = None;
            self.changed = true;
        }
        self.bring_up_to_date(UPDATE_WAIT);
        self.requests += 1;
        let index = self.index.clone();
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::console::capture(|| with_index(&self.root, index, || (self.execute)(cli)))
        }));
        match ran {
            Ok((code, printed)) => Answer::Output {
                stdout: String::from_utf8_lossy(&printed.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&printed.stderr).into_owned(),
                code: exit_code_number(code),
            },
            Err(_) => refuse("the command failed in the daemon"),
        }
    }

    /// Holds the index open once it is up to date: indexes what changed
    /// on a thread of its own ([`Worker::start_update`]), and waits
    /// for that run at most `wait` (a request: [`UPDATE_WAIT`]). A request
    /// that comes while a run goes on is answered as a one-shot command
    /// would answer it (from the index as it is, with its warnings).
    fn bring_up_to_date(&mut self, wait: Duration) {
        if self.updating.is_none() && !self.changed && self.index.is_some() {
            return;
        }
        if self.updating.is_none() {
            // Two runs never write at once: the last one's embedding first.
            if !self.embedded(wait) {
                return;
            }
            self.changed = false;
            self.index = None;
            if crate::commands::profiled("check for changes", || self.stale()) {
                self.updating = Some(self.start_update());
            }
        }
        if let Some(done) = &self.updating {
            match done.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => return,
                Ok(()) | Err(RecvTimeoutError::Disconnected) => self.updating = None,
            }
        }
        self.index = Index::open(&self.root).ok().map(Rc::new);
        if self.log.is_none() {
            self.log = keep_log(&self.root).ok();
        }
    }

    /// Whether the last run's embedding has ended, waiting at most `wait`.
    fn embedded(&mut self, wait: Duration) -> bool {
        let Some(embedding) = &self.embedding else {
            return true;
        };
        if let Err(RecvTimeoutError::Timeout) = embedding.recv_timeout(wait) {
            return false;
        }
        self.embedding = None;
        true
    }

    /// Whether files changed since the index was written: the one-shot
    /// check, over the paths the watcher named when it has a last walk.
    fn stale(&self) -> bool {
        let memory = self.watch.is_some().then_some(&*self.memory);
        match Index::open(&self.root) {
            Ok(index) => {
                !index.last_run_complete().unwrap_or(false)
                    || index.staleness_with(memory).map_or(true, |s| s.is_stale())
            }
            Err(_) => true,
        }
    }

    /// `evident index --quiet --no-embed` on its own thread, then `evident
    /// embed --quiet` for what it added (unless the daemon runs with
    /// `--no-embed`); the receiver hears when the index run ends, and
    /// `self.embedding` when the embedding does.
    fn start_update(&mut self) -> mpsc::Receiver<()> {
        self.updates += 1;
        let command = |words: &[&str]| {
            let root = self.root.to_string_lossy().into_owned();
            let line = ["evident", "--repo", &root]
                .into_iter()
                .chain(words.iter().copied());
            Cli::parse_from(line)
        };
        let index = command(&["index", "--quiet", "--no-embed"]);
        let embed = (!self.args.no_embed).then(|| command(&["embed", "--quiet"]));
        // Without a watcher the memory knows of no change: the run walks all.
        let memory = self.watch.is_some().then(|| self.memory.clone());
        let (done, finished) = mpsc::channel();
        let (embedded, embedding) = mpsc::channel();
        self.embedding = Some(embedding);
        let execute = self.execute;
        let root = self.root.clone();
        std::thread::spawn(move || {
            let ran = |what: &str, started: Instant, (code, printed): (ExitCode, Captured)| {
                let _ = std::io::stderr().write_all(&printed.stderr);
                eprintln!(
                    "{what} in {:.0} ms (exit {})",
                    started.elapsed().as_secs_f64() * 1e3,
                    exit_code_number(code)
                );
            };
            let started = Instant::now();
            let indexed = with_walk_memory(memory, || crate::console::capture(|| execute(index)));
            ran("index brought up to date", started, indexed);
            let _ = done.send(());
            if let Some(embed) = embed {
                let started = Instant::now();
                ran(
                    "new chunks embedded",
                    started,
                    crate::console::capture(|| execute(embed)),
                );
            }
            let _ = embedded.send(());
            // After the answer: the pages the run and the embedding wrote
            // reach the database file while the daemon waits for requests.
            let _ = checkpoint_log(&root);
        });
        finished
    }
}

/// `ExitCode` keeps its number to itself; the commands use 0 to 4 and 130.
fn exit_code_number(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|n| ExitCode::from(*n) == code)
        .unwrap_or(2)
}
