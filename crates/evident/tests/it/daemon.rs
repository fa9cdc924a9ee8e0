//! `evident daemon`: the same bytes as a one-shot command for every query
//! command, the index kept current as files change, a daemon of another
//! build replaced, an idle one gone, and a killed one leaving an index that
//! the next run completes.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use evident_testkit::cli::{self, stderr, stdout};
use evident_testkit::fs::fixture_repo;
use evident_testkit::git::commit_all;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

/// Stops the repository's daemon when the test ends, however it ends.
struct Daemon {
    bin: PathBuf,
    root: PathBuf,
}

impl Daemon {
    fn start(bin: &Path, root: &Path, idle_timeout: &str) -> Daemon {
        let out = cli::run(
            bin.to_str().unwrap(),
            root,
            &["daemon", "start", "--idle-timeout", idle_timeout],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        Daemon {
            bin: bin.to_path_buf(),
            root: root.to_path_buf(),
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = cli::run(self.bin.to_str().unwrap(), &self.root, &["daemon", "stop"]);
        let _ = cli::run(BIN, &self.root, &["daemon", "stop"]);
    }
}

fn daemon_status(root: &Path) -> serde_json::Value {
    let out = cli::run(BIN, root, &["--json", "daemon", "status"]);
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn daemon_log(root: &Path) -> String {
    std::fs::read_to_string(root.join(".evident/daemon.log")).unwrap_or_default()
}

fn requests(root: &Path) -> u64 {
    daemon_status(root)["requests"].as_u64().unwrap()
}

fn indexed_fixture() -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = fixture_repo();
    std::fs::write(
        root.join("README.md"),
        "# Fixture\n\n## Usage\n\nCall `main`.\n",
    )
    .unwrap();
    commit_all(&root, "fixture");
    std::fs::write(
        root.join("app/helpers.py"),
        std::fs::read_to_string(root.join("app/helpers.py")).unwrap()
            + "\n\ndef later():\n    return 1\n",
    )
    .unwrap();
    let out = cli::run(BIN, &root, &["index", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    (tmp, root)
}

/// Every query command the daemon answers, with answers, with nothing found
/// and with errors, in text and JSON.
const QUERIES: &[&[&str]] = &[
    &["symbol", "get_collection_name"],
    &["--json", "symbol", "main"],
    &["symbol", "no_such_name"],
    &["read", "app/main.py", "1", "5"],
    &["read", "no/such/file.py", "1", "2"],
    &["importers", "rag_common"],
    &["outline", "app/main.py"],
    &["--json", "status"],
    &["def", "app/main.py:11:12"],
    &["callers", "get_collection_name"],
    &["callers", "get_collection_name", "--format", "mermaid"],
    &["callees", "main"],
    &["impact", "get_collection_name"],
    &["--json", "impact", "get_collection_name"],
    &["diff"],
    &["--json", "diff"],
    &["graph", "--format", "dot"],
    &["graph", "--level", "package", "--format", "text"],
    &["--json", "graph", "--level", "file"],
    &["sources"],
    &["search", "collection name", "--mode", "bm25"],
    &["search", "collection name"],
    &["--json", "search", "compute", "--group", "definition"],
];

fn outcome(out: &Output) -> (String, String, Option<i32>) {
    (stdout(out), stderr(out), out.status.code())
}

#[test]
fn every_query_command_prints_the_same_through_the_daemon() {
    let (_tmp, root) = indexed_fixture();
    let one_shot: Vec<_> = QUERIES
        .iter()
        .map(|args| outcome(&cli::run(BIN, &root, &[&["--no-daemon"], *args].concat())))
        .collect();
    let _daemon = Daemon::start(Path::new(BIN), &root, "120");
    for (args, expected) in QUERIES.iter().zip(&one_shot) {
        let before = requests(&root);
        let through_daemon = outcome(&cli::run(BIN, &root, args));
        assert_eq!(&through_daemon, expected, "evident {args:?}");
        assert_eq!(requests(&root), before + 1, "the daemon answered {args:?}");
    }
    // A document by its ID (from `sources`), and a command started in a
    // subdirectory, where paths are still the repository's.
    let id = one_shot[17]
        .0
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let source = ["source", id.as_str()];
    let expected = outcome(&cli::run(
        BIN,
        &root,
        &[&["--no-daemon"], &source[..]].concat(),
    ));
    assert_eq!(outcome(&cli::run(BIN, &root, &source)), expected);
    let subdir = root.join("app");
    let expected = outcome(&cli::run(
        BIN,
        &subdir,
        &["--no-daemon", "outline", "app/main.py"],
    ));
    assert_eq!(
        outcome(&cli::run(BIN, &subdir, &["outline", "app/main.py"])),
        expected
    );

    // Another environment (here: profiling on) could print otherwise: the
    // client answers itself.
    let before = requests(&root);
    let out = cli::command(BIN, &root)
        .env("EVIDENT_PROFILE", "1")
        .args(["callers", "get_collection_name"])
        .output()
        .unwrap();
    assert!(
        stderr(&out).contains("profile: command:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(requests(&root), before, "answered in the client");
    // Another terminal's session is the same environment for a command.
    let out = cli::command(BIN, &root)
        .env("XDG_SESSION_ID", "42")
        .args(["symbol", "get_collection_name"])
        .output()
        .unwrap();
    assert_eq!(outcome(&out), one_shot[0]);
    assert_eq!(requests(&root), before + 1, "answered by the daemon");
}

#[test]
fn the_daemon_keeps_the_index_current_as_files_change() {
    let (_tmp, root) = indexed_fixture();
    let _daemon = Daemon::start(Path::new(BIN), &root, "120");
    let main = root.join("app/main.py");
    std::fs::write(
        &main,
        std::fs::read_to_string(&main).unwrap() + "\n\ndef added_later():\n    return main()\n",
    )
    .unwrap();
    std::fs::remove_file(root.join("pkg/sub/deep.py")).unwrap();

    // No `evident index`: the daemon saw the change.
    let out = cli::run(BIN, &root, &["symbol", "added_later"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("app/main.py"), "{}", stdout(&out));
    assert!(!stderr(&out).contains("stale"), "{}", stderr(&out));
    let out = cli::run(BIN, &root, &["callers", "main"]);
    assert!(stdout(&out).contains("added_later"), "{}", stdout(&out));
    assert!(daemon_status(&root)["updates"].as_u64().unwrap() >= 1);

    // A command run right after a write sees it: the daemon waits for its
    // watcher to note every earlier change.
    for i in 0..8 {
        let name = format!("quick_{i}");
        let text =
            std::fs::read_to_string(&main).unwrap() + &format!("\n\ndef {name}():\n    return 1\n");
        std::fs::write(&main, text).unwrap();
        let out = cli::run(BIN, &root, &["symbol", &name]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
    assert_eq!(daemon_status(&root)["unconfirmed"], 0);

    // The new chunks' vectors follow each run, which requests did not wait
    // for: once the log says the last embedding ended, nothing is left.
    let log = root.join(".evident/daemon.log");
    let settled = wait_for(Duration::from_secs(30), || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let runs = text.matches("index brought up to date").count();
        (runs > 0 && text.matches("new chunks embedded").count() == runs).then_some(())
    });
    assert!(
        settled.is_some(),
        "{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let out = cli::run(BIN, &root, &["--no-daemon", "--json", "embed", "--quiet"]);
    let embedded: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(embedded["embedded"], 0, "{embedded}");
    assert!(embedded["with_vectors"].as_u64().unwrap() > 0, "{embedded}");

    // What it wrote is what a rebuild writes.
    let kept = dump(&root);
    let out = cli::run(
        BIN,
        &root,
        &["--no-daemon", "index", "--rebuild", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(kept, dump(&root));
}

fn dump(root: &Path) -> Vec<String> {
    evident_index::Index::open(root)
        .unwrap()
        .canonical_dump()
        .unwrap()
}

#[test]
fn a_daemon_of_another_build_is_refused_and_replaced() {
    let (tmp, root) = indexed_fixture();
    // The same program at another path is another build to the client.
    let old = tmp.path().join("evident-old");
    std::fs::copy(BIN, &old).unwrap();
    let _old_daemon = Daemon::start(&old, &root, "120");
    let old_status = cli::run(
        old.to_str().unwrap(),
        &root,
        &["--json", "daemon", "status"],
    );
    let old_pid =
        serde_json::from_str::<serde_json::Value>(&stdout(&old_status)).unwrap()["pid"].clone();
    assert_eq!(daemon_status(&root)["current_build"], false);

    let expected = outcome(&cli::run(BIN, &root, &["--no-daemon", "symbol", "main"]));
    assert_eq!(
        outcome(&cli::run(BIN, &root, &["symbol", "main"])),
        expected
    );

    let _daemon = Daemon {
        bin: BIN.into(),
        root: root.clone(),
    };
    let replaced = wait_for(Duration::from_secs(30), || {
        let status = daemon_status(&root);
        (status["current_build"] == true).then_some(status)
    })
    .expect("a daemon of this build took over");
    assert_ne!(replaced["pid"], old_pid);
    assert_eq!(
        outcome(&cli::run(BIN, &root, &["symbol", "main"])),
        expected
    );
    assert_eq!(requests(&root), 1);
}

fn wait_for<T>(limit: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(found) = check() {
            return Some(found);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn an_idle_daemon_stops_and_a_stop_without_one_says_so() {
    let (_tmp, root) = indexed_fixture();
    let _daemon = Daemon::start(Path::new(BIN), &root, "1");
    let gone = wait_for(Duration::from_secs(20), || {
        (!root.join(".evident/daemon.sock").exists()).then_some(())
    });
    assert!(gone.is_some(), "the idle daemon stopped");
    let out = cli::run(BIN, &root, &["daemon", "stop"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no daemon runs for"),
        "{}",
        stderr(&out)
    );
    let out = cli::run(BIN, &root, &["daemon", "status"]);
    assert_eq!(out.status.code(), Some(1));
}

/// Many files, so that a kill lands while the daemon indexes them.
fn many_files(root: &Path, files: usize, version: usize) {
    for i in 0..files {
        let dir = root.join(format!("gen/d{}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let body: String = (0..20)
            .map(|j| format!("def f{i}_{j}_{version}(x):\n    return g{j}(x) + {i}\n\n"))
            .collect();
        std::fs::write(dir.join(format!("m{i}.py")), body).unwrap();
    }
}

fn run_state(root: &Path) -> Option<String> {
    let read_only = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let conn =
        rusqlite::Connection::open_with_flags(root.join(".evident/index.db"), read_only).ok()?;
    conn.query_row("SELECT value FROM meta WHERE key = 'run_state'", [], |r| {
        r.get(0)
    })
    .ok()
}

#[test]
fn a_daemon_killed_while_it_indexes_leaves_an_index_the_next_run_completes() {
    let (_tmp, root) = indexed_fixture();
    many_files(&root, 300, 1);
    let out = cli::run(BIN, &root, &["index", "--quiet", "--no-embed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let daemon = Daemon::start(Path::new(BIN), &root, "120");
    let pid = daemon_status(&root)["pid"].to_string();
    many_files(&root, 300, 2);
    let caught = wait_for(Duration::from_secs(60), || {
        (run_state(&root).as_deref() == Some("in_progress")).then_some(())
    });
    assert!(caught.is_some(), "the daemon started indexing the change");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    drop(daemon);

    // The socket nobody listens on is not a daemon: the command answers itself.
    let out = cli::run(BIN, &root, &["symbol", "f0_0_1"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let out = cli::run(BIN, &root, &["index", "--quiet", "--no-embed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cli::run(BIN, &root, &["symbol", "f299_19_2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cli::run(BIN, &root, &["index", "--check", "--quiet", "--no-embed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let kept = dump(&root);
    let out = cli::run(BIN, &root, &["index", "--rebuild", "--quiet", "--no-embed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(kept, dump(&root));
}

#[test]
fn a_query_starts_the_daemon_when_the_settings_ask() {
    let (_tmp, root) = indexed_fixture();
    std::fs::write(
        root.join("evident.toml"),
        "[daemon]\nauto_start = true\nidle_timeout_s = 120\n",
    )
    .unwrap();
    let _daemon = Daemon {
        bin: BIN.into(),
        root: root.clone(),
    };
    let expected = outcome(&cli::run(BIN, &root, &["--no-daemon", "symbol", "main"]));
    // No daemon yet: this command answers itself, and starts one.
    assert_eq!(
        outcome(&cli::run(BIN, &root, &["symbol", "main"])),
        expected
    );
    let started = wait_for(Duration::from_secs(30), || {
        let status = daemon_status(&root);
        (status["running"] == true).then_some(status)
    })
    .unwrap_or_else(|| panic!("no daemon answered; its log:\n{}", daemon_log(&root)));
    assert_eq!(started["idle_timeout_s"], 120);
    assert_eq!(
        outcome(&cli::run(BIN, &root, &["symbol", "main"])),
        expected
    );
    assert_eq!(requests(&root), 1, "the daemon answered");
}

/// A socket that refuses is a dead daemon's only when no process holds the
/// daemon's lock: one that does is still starting (it takes the lock before
/// it listens), and its socket stays where its clients will look.
#[test]
fn a_refused_socket_is_removed_only_when_no_daemon_holds_the_lock() {
    use std::os::fd::AsRawFd;
    let (_tmp, root) = indexed_fixture();
    let socket = root.join(".evident/daemon.sock");
    // Bound, then closed: connecting to it is refused.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let lock = std::fs::File::create(root.join(".evident/daemon.lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let expected = outcome(&cli::run(BIN, &root, &["--no-daemon", "symbol", "main"]));
    assert_eq!(
        outcome(&cli::run(BIN, &root, &["symbol", "main"])),
        expected
    );
    assert!(socket.exists(), "a starting daemon's socket was kept");
    drop(lock);
    assert_eq!(
        outcome(&cli::run(BIN, &root, &["symbol", "main"])),
        expected
    );
    assert!(!socket.exists(), "a dead daemon's socket was removed");
}
