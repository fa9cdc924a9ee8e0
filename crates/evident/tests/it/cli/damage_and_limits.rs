//! Indexes that are damaged, read-only or being rebuilt, and arguments that
//! are too long, empty or outside the repository: each gets a precise
//! message, and the index ends whole.

use std::io::{Seek, SeekFrom, Write};

use super::*;

const PAGE: u64 = 4096;

fn page_count(root: &Path) -> u64 {
    std::fs::metadata(root.join(".evident/index.db"))
        .unwrap()
        .len()
        / PAGE
}

/// Overwrites page `page` (from 0) of the index with bytes that are not a page.
fn damage_page(root: &Path, page: u64) {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(root.join(".evident/index.db"))
        .unwrap();
    file.seek(SeekFrom::Start(page * PAGE)).unwrap();
    let noise: Vec<u8> = (0..PAGE).map(|i| (i * 7919 % 251) as u8 ^ 0x5a).collect();
    file.write_all(&noise).unwrap();
}

/// Everything in the log moved into the file, so a page written there is
/// the one readers see.
fn checkpoint(root: &Path) {
    let conn = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

/// A damaged page at any offset: `status` says the index is damaged (exit
/// 2, and what to run), the next `evident index` builds it again without
/// `--rebuild`, and the result is the index a clean build makes.
#[test]
fn a_damaged_page_is_reported_then_healed() {
    let (_tmp, root) = big_repo(300);
    assert!(evident(&root, &["index", "-q"]).status.success());
    let clean = dump(&root);
    checkpoint(&root);
    for at in [0.0, 0.0001, 0.25, 0.5, 0.75, 0.9999] {
        let page = (page_count(&root) as f64 * at) as u64;
        damage_page(&root, page);
        let status = evident(&root, &["status"]);
        let err = stderr(&status);
        assert_eq!(status.status.code(), Some(2), "page {page}: {err}");
        assert!(
            err.contains("is damaged") && err.contains("run `evident index`"),
            "page {page}: {err}"
        );
        let out = evident(&root, &["index"]);
        assert!(out.status.success(), "page {page}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("the index was damaged: it was built again"),
            "page {page}: {}",
            stdout(&out)
        );
        assert!(evident(&root, &["status"]).status.success(), "page {page}");
        assert!(dump(&root) == clean, "page {page}: healed index differs");
        checkpoint(&root);
    }
}

/// A run reads every page of a small index (and of any with `--check`), so
/// it heals a damage no reader has met yet.
#[test]
fn a_run_finds_a_damage_no_reader_met() {
    let (_tmp, root) = big_repo(200);
    assert!(evident(&root, &["index", "-q"]).status.success());
    let clean = dump(&root);
    for args in [&["index"][..], &["index", "--check"]] {
        checkpoint(&root);
        damage_page(&root, page_count(&root) / 2);
        let out = evident(&root, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("the index was damaged"),
            "{args:?}: {}",
            stdout(&out)
        );
        assert!(dump(&root) == clean, "{args:?}");
    }
}

/// A table missing (here `meta`) is damage too: the run builds the index
/// again instead of printing SQLite's `CREATE TABLE` error.
#[test]
fn a_missing_table_is_healed_without_sql_in_the_message() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let clean = dump(&root);
    let conn = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
    conn.execute_batch("DROP TABLE meta").unwrap();
    drop(conn);
    let query = evident(&root, &["symbol", "compute"]);
    assert_eq!(query.status.code(), Some(2));
    assert!(stderr(&query).contains("is damaged"), "{}", stderr(&query));
    let out = evident(&root, &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("CREATE TABLE") && !stderr(&out).contains("CREATE TABLE"));
    assert!(dump(&root) == clean);
}

/// Readers see the old index until the rebuilt one is complete: no query
/// during `--rebuild` fails, finds no index, or meets a half-built one.
#[test]
fn queries_during_a_rebuild_see_the_old_index() {
    let (_tmp, root) = big_repo(1200);
    assert!(evident(&root, &["index", "-q"]).status.success());
    let clean = dump(&root);
    let mut child = cli::hermetic(BIN)
        .args(["index", "--quiet", "--rebuild", "--batch-size", "16"])
        .current_dir(&root)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut rounds = 0;
    while child.try_wait().unwrap().is_none() {
        let queries: [&[&str]; 5] = [
            &["symbol", "f1_1"],
            &["importers", "os"],
            &["status"],
            &["callers", "f1_1"],
            &["search", "return g1", "--mode", "bm25"],
        ];
        for args in queries {
            let out = evident(&root, args);
            let err = stderr(&out);
            // An answer or nothing found; never an error, "no index" or
            // "the last run did not finish".
            assert!(
                matches!(out.status.code(), Some(0 | 1))
                    && !err.contains("error")
                    && !err.contains("warning")
                    && !err.contains("no index"),
                "round {rounds}, {args:?}: {:?} {err}",
                out.status.code()
            );
        }
        rounds += 1;
    }
    assert!(child.wait_with_output().unwrap().status.success());
    assert!(rounds > 0, "the rebuild ended before any query ran");
    assert!(dump(&root) == clean);
    assert!(!root.join(".evident/rebuild.db").exists());
}

/// A killed rebuild leaves the old index as it was; the next run removes
/// what the rebuild left.
#[test]
fn a_killed_rebuild_leaves_the_old_index() {
    let (_tmp, root) = big_repo(800);
    assert!(evident(&root, &["index", "-q"]).status.success());
    let clean = dump(&root);
    let mut child = cli::hermetic(BIN)
        .args(["index", "--quiet", "--rebuild", "--batch-size", "16"])
        .current_dir(&root)
        .spawn()
        .unwrap();
    let side = root.join(".evident/rebuild.db");
    for _ in 0..2000 {
        if side.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert!(dump(&root) == clean, "the kill changed the live index");
    assert!(evident(&root, &["index", "-q"]).status.success());
    assert!(!side.exists());
    assert!(dump(&root) == clean);
}

/// On a read-only mount SQLite cannot make its `-shm` file: the index is
/// read as it is, and the user is told results are as of the last run.
#[test]
fn a_read_only_mount_is_queried_as_of_its_last_index() {
    let (tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let mount = tmp.path().join("read-only");
    std::fs::create_dir(&mount).unwrap();
    // A private mount namespace: the mount ends with the command.
    let script = format!(
        "mount --bind '{root}' '{mount}' && mount -o remount,bind,ro '{mount}' && \
         ! touch '{mount}/probe' 2>/dev/null && \
         cd '{mount}' && '{BIN}' symbol compute; echo \"rc=$?\"; '{BIN}' index -q; echo \"rc=$?\"",
        root = root.display(),
        mount = mount.display(),
    );
    let out = Command::new("unshare")
        .args(["--mount", "--map-root-user", "sh", "-c", &script])
        .env("HOME", tmp.path())
        .output()
        .unwrap();
    let (text, err) = (stdout(&out), stderr(&out));
    if !text.contains("rc=") {
        evident_testkit::skip::missing(
            None,
            "a_read_only_mount_is_queried_as_of_its_last_index",
            &format!("cannot bind-mount read-only here: {err}"),
        );
        return;
    }
    assert!(
        text.contains("pkg/mod.py:") && text.contains("rc=0"),
        "{text}\n{err}"
    );
    assert!(
        err.contains("read-only file system: results are as of the last `evident index`"),
        "{err}"
    );
    assert!(!err.contains("damaged"), "{err}");
    // Indexing there fails with the cause said once.
    assert!(text.contains("rc=2"), "{text}");
    assert_eq!(err.matches("Read-only file system").count(), 1, "{err}");
}

#[test]
fn broken_arguments_and_index_files_get_precise_messages() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let long = "a".repeat(60_000);
    let cases: [(&[&str], &str); 10] = [
        (
            &["symbol", &long],
            "symbol name is 60000 characters long; the limit is 200",
        ),
        (
            &["callers", &long],
            "symbol is 60000 characters long; the limit is 200",
        ),
        (
            &["impact", &long],
            "symbol is 60000 characters long; the limit is 200",
        ),
        (
            &["importers", &long],
            "module is 60000 characters long; the limit is 200",
        ),
        (&["def", ":5"], "path is empty"),
        (&["outline", ""], "path is empty"),
        (
            &["outline", "/etc/passwd"],
            "/etc/passwd is outside the repository",
        ),
        (&["symbol", "x", "--limit", "0"], "must be at least 1"),
        (&["callers", "x", "--limit", "0"], "must be at least 1"),
        (&["search", "x", "--limit", "0"], "must be at least 1"),
    ];
    for (args, message) in cases {
        let out = evident(&root, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }

    // Not a database: SQLite's words once, and the way out.
    let db = root.join(".evident/index.db");
    let saved = std::fs::read(&db).unwrap();
    std::fs::write(
        &db,
        b"not a database at all, but long enough to be read as one".repeat(100),
    )
    .unwrap();
    let out = evident(&root, &["symbol", "compute"]);
    let err = stderr(&out);
    assert_eq!(err.matches("not a database").count(), 1, "{err}");
    assert!(err.contains("run `evident index`"), "{err}");

    // A directory where the index should be: both say so, neither deletes it.
    std::fs::remove_file(&db).unwrap();
    std::fs::create_dir(&db).unwrap();
    for args in [&["symbol", "compute"][..], &["index"]] {
        let out = evident(&root, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("is a directory, not an index: move it away"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(db.is_dir());
    std::fs::remove_dir(&db).unwrap();
    std::fs::write(&db, saved).unwrap();
}

/// A file name with terminal escapes or a newline reaches the terminal
/// escaped in every text line that names it; JSON keeps the name exact.
#[test]
fn hostile_file_names_are_escaped_in_text_output() {
    let (_tmp, root) = fixture_repo();
    let names = [
        "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31mRED.py",
        "two\nlines.py",
    ];
    for name in names {
        std::fs::write(root.join(name), "def f():\n    return 1\n").unwrap();
    }
    for args in [&["index", "--no-embed"][..], &["status"]] {
        let out = evident(&root, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let (text, err) = (stdout(&out), stderr(&out));
        for output in [&text, &err] {
            assert!(
                !output.contains('\u{1b}') && !output.contains('\u{7}'),
                "{args:?}: {output:?}"
            );
        }
        assert!(text.contains("\\u{1b}]0;pwned\\u{7}"), "{args:?}: {text}");
        assert!(text.contains("two\\u{a}lines.py"), "{args:?}: {text}");
    }
    let out = evident(&root, &["--json", "index", "--no-embed"]);
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let skipped: Vec<&str> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    for name in names {
        assert!(skipped.contains(&name), "{skipped:?}");
    }
}

/// Started in the background from a script, a process inherits SIGINT
/// ignored; `evident serve` installs its handler, so `kill -INT` stops it.
#[test]
fn serve_started_in_the_background_stops_on_sigint() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let script = "\"$0\" serve --port 0 >/dev/null 2>&1 & echo $!; wait $!; echo \"exit=$?\"";
    let mut shell = cli::hermetic("sh")
        .args(["-c", script, BIN])
        .current_dir(&root)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(shell.stdout.take().unwrap()));
    let pid = lines.next().unwrap().unwrap();
    // Until it listens, a signal could land before the handler exists.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(lines.next().and_then(Result::ok));
    });
    let ended = receiver.recv_timeout(Duration::from_secs(20));
    let _ = Command::new("kill").args(["-KILL", &pid]).status();
    let _ = shell.wait();
    let ended = ended.expect("`evident serve` went on after SIGINT");
    assert_eq!(ended.as_deref(), Some("exit=0"));
}
