//! The client side: forward a query command to the repository's daemon, and
//! `evident daemon start|stop|status`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::protocol::{
    build_identity, daemon_lives, forwarded_env, log_path, run_args, socket_path, Answer, Ask,
    DaemonStatus, Request,
};
use crate::cli::{Cli, Command, DaemonRunArgs, DAEMON_IDLE_S};
use crate::commands::query_root;

/// What the daemon printed for a command, to print here.
pub struct Answered {
    stdout: String,
    stderr: String,
    code: u8,
}

impl Answered {
    /// Prints the answer as the command would have (stderr first: warnings
    /// and counts come before results in a one-shot run too).
    pub fn print(self) -> ExitCode {
        let _ = std::io::stderr().lock().write_all(self.stderr.as_bytes());
        let mut stdout = std::io::stdout().lock();
        if stdout
            .write_all(self.stdout.as_bytes())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return ExitCode::from(2);
        }
        ExitCode::from(self.code)
    }
}

/// The daemon's answer to this command line, when a daemon runs for the
/// repository, the command is one it answers, and it accepts the request.
/// `None`: answer here.
pub fn answer_through_daemon(cli: &Cli) -> Option<Answered> {
    let off = std::env::var_os("EVIDENT_NO_DAEMON").is_some_and(|v| !v.is_empty() && v != "0");
    if cli.no_daemon || off || !answered_by_daemon(&cli.command) {
        return None;
    }
    let root = query_root(&cli.repo).ok()?.canonicalize().ok()?;
    // Colour is this terminal's to decide, not the daemon's: said first,
    // so that a `--color` of the user's own, later, still wins.
    let colour = if crate::console::colours(cli.color) {
        "always"
    } else {
        "never"
    };
    let args = std::iter::once(format!("--color={colour}"))
        .map(Some)
        .chain(std::env::args_os().skip(1).map(|a| a.into_string().ok()))
        .collect::<Option<Vec<String>>>()?;
    let cwd = std::env::current_dir().ok()?.to_str()?.to_string();
    let ask = Ask::Command {
        root: root.to_str()?.to_string(),
        cwd,
        env: forwarded_env(),
        args,
    };
    let Some(answer) = exchange(&root, ask) else {
        start_on_demand(&root);
        return None;
    };
    match answer {
        Answer::Output {
            stdout,
            stderr,
            code,
        } => Some(Answered {
            stdout,
            stderr,
            code,
        }),
        Answer::Refused {
            replace: true,
            run_args,
            ..
        } => {
            // The old daemon stops; one of this build answers next time.
            let _ = spawn(&root, &run_args);
            None
        }
        _ => None,
    }
}

/// Starts a daemon in the background when the settings ask for one
/// (`[daemon] auto_start`, `EVIDENT_DAEMON=auto`) and the repository has an
/// index; this command answers itself meanwhile.
fn start_on_demand(root: &Path) {
    let Ok(settings) = crate::settings::Settings::load(root) else {
        return;
    };
    if settings.daemon.auto_start == Some(true)
        && evident_index::store::index_path(root).is_file()
        && !daemon_lives(root)
    {
        let args = DaemonRunArgs {
            idle_timeout: settings.daemon.idle_timeout_s.unwrap_or(DAEMON_IDLE_S),
            no_embed: false,
        };
        let _ = spawn(root, &run_args(&args));
    }
}

/// The commands a daemon answers: those that read the index and print. Not
/// `def --stdin` (it reads standard input) nor a search that reranks with a
/// model (it would hold the daemon for seconds).
fn answered_by_daemon(command: &Command) -> bool {
    match command {
        Command::Def { stdin, .. } => !stdin,
        Command::Search(args) => !args.rerank,
        command => command.only_reads_the_index(),
    }
}

/// One request and its answer; `None` when no daemon answers. A socket no
/// process listens on (a daemon that was killed) is removed.
fn exchange(root: &Path, ask: Ask) -> Option<Answer> {
    let socket = socket_path(root);
    let mut stream = match UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
            if !daemon_lives(root) {
                let _ = std::fs::remove_file(&socket);
            }
            return None;
        }
        Err(_) => return None,
    };
    let request = Request {
        build: build_identity(),
        ask,
    };
    let mut line = serde_json::to_string(&request).ok()?;
    line.push('\n');
    stream.write_all(line.as_bytes()).ok()?;
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).ok()?;
    serde_json::from_str(&reply).ok()
}

/// Starts a daemon for `root` in the background, in its own session, its
/// output to `.evident/daemon.log`.
fn spawn(root: &Path, run_args: &[String]) -> Result<()> {
    use std::os::unix::process::CommandExt;
    std::fs::create_dir_all(root.join(".evident"))?;
    let log = std::fs::File::create(log_path(root)).context("creating the daemon's log")?;
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command
        .arg("--repo")
        .arg(root)
        .args(["daemon", "run"])
        .args(run_args)
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    // SAFETY: setsid is async-signal-safe; it runs in the child before exec.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    command.spawn().context("starting the daemon")?;
    Ok(())
}

fn running(root: &Path) -> Option<DaemonStatus> {
    match exchange(root, Ask::Status)? {
        Answer::Status(status) if status.build == build_identity() => Some(status),
        _ => None,
    }
}

/// `evident daemon start`: returns when the daemon answers.
pub fn start(root: &Path, args: &DaemonRunArgs) -> Result<ExitCode> {
    if let Some(status) = running(root) {
        errln!(
            "a daemon already runs for {} (pid {})",
            root.display(),
            status.pid
        );
        return Ok(ExitCode::SUCCESS);
    }
    // A daemon of another build stops when asked anything.
    let _ = exchange(root, Ask::Stop);
    spawn(root, &run_args(args))?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if let Some(status) = running(root) {
            errln!(
                "daemon started for {} (pid {}); it stops after {} s without a request, or with `evident daemon stop`",
                root.display(),
                status.pid,
                args.idle_timeout
            );
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = std::fs::read_to_string(log_path(root)).unwrap_or_default();
    bail!(
        "the daemon did not start within 60 s; its log ({}):\n{}",
        log_path(root).display(),
        log.trim_end()
    )
}

/// `evident daemon stop`: returns when the socket is gone.
pub fn stop(root: &Path) -> Result<ExitCode> {
    if !matches!(exchange(root, Ask::Stop), Some(Answer::Stopping)) {
        errln!("no daemon runs for {}", root.display());
        return Ok(ExitCode::from(1));
    }
    let started = Instant::now();
    while socket_path(root).exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    errln!("daemon stopped for {}", root.display());
    Ok(ExitCode::SUCCESS)
}

/// `evident daemon status`.
pub fn status(root: &Path, json: bool) -> Result<ExitCode> {
    let Some(Answer::Status(status)) = exchange(root, Ask::Status) else {
        if json {
            outln!("{}", serde_json::json!({ "running": false }));
        }
        errln!("no daemon runs for {}", root.display());
        return Ok(ExitCode::from(1));
    };
    let current = status.build == build_identity();
    if json {
        let mut value = serde_json::to_value(&status)?;
        value["running"] = true.into();
        value["current_build"] = current.into();
        outln!("{value}");
        return Ok(ExitCode::SUCCESS);
    }
    outln!("daemon:    pid {} for {}", status.pid, status.root);
    outln!(
        "build:     {}{}",
        status.build,
        if current {
            ""
        } else {
            " (another build: the next command replaces it)"
        }
    );
    outln!("started:   {} (unix time)", status.started_at);
    outln!(
        "idle stop: after {} s without a request",
        status.idle_timeout_s
    );
    outln!(
        "watching:  {}",
        if status.watching {
            "yes"
        } else {
            "no (every request checks the files' stat data)"
        }
    );
    outln!("requests:  {}", status.requests);
    outln!(
        "updates:   {} index run(s) after file changes",
        status.updates
    );
    if status.unconfirmed > 0 {
        outln!(
            "late:      {} request(s) checked the files' stat data: the watcher was late",
            status.unconfirmed
        );
    }
    Ok(ExitCode::SUCCESS)
}
