//! The `evident` binary end to end: commands, output formats, exit codes,
//! and what a kill or Ctrl-C during indexing leaves behind.

mod damage_and_limits;
mod indexing_and_faults;
mod query_commands;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use evident_testkit::cli::{self, stderr, stdout};
use evident_testkit::fs::fixture_repo;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

fn evident(dir: &Path, args: &[&str]) -> Output {
    cli::run(BIN, dir, args)
}

/// Every row of the index at `root`, ids replaced by what they point at.
fn dump(root: &Path) -> Vec<String> {
    evident_index::Index::open(root)
        .unwrap()
        .canonical_dump()
        .unwrap()
}

/// Many files, so that a signal lands in the middle of a run.
fn big_repo(files: usize) -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = fixture_repo();
    for i in 0..files {
        let dir = root.join(format!("gen/d{}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let body: String = (0..20)
            .map(|j| format!("def f{i}_{j}(x):\n    return g{j}(x) + {i}\n\n"))
            .collect();
        std::fs::write(
            dir.join(format!("m{i}.py")),
            format!("import os\nfrom gen.d0 import m0\n{body}"),
        )
        .unwrap();
    }
    (tmp, root)
}

fn start_index(root: &Path) -> std::process::Child {
    cli::hermetic(BIN)
        .args(["index", "--quiet", "--batch-size", "16"])
        .current_dir(root)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until some batch is committed, so the signal lands mid-run.
fn wait_for_first_batch(root: &Path) {
    let db = root.join(".evident/index.db");
    for _ in 0..2000 {
        let read_only = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        if let Ok(conn) = rusqlite::Connection::open_with_flags(&db, read_only) {
            let files: rusqlite::Result<i64> =
                conn.query_row("SELECT count(*) FROM files", [], |r| r.get(0));
            if files.is_ok_and(|n| n > 0) {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("indexing never committed a batch");
}

fn signal(child: &std::process::Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// What a reader must say about an index that a run may be writing, or that
/// a killed run left: an answer (exit 0), nothing found (1), or, before the
/// first commit of a first run, that there is no index yet. Anything else is
/// returned as a failure.
fn reader_failures(root: &Path) -> Vec<String> {
    let queries: [&[&str]; 5] = [
        &["status"],
        &["symbol", "f1_1"],
        &["search", "return x", "--mode", "bm25"],
        &["callers", "g3"],
        &["importers", "os"],
    ];
    let mut failures = Vec::new();
    for args in queries {
        let out = evident(root, args);
        let err = stderr(&out);
        let ok = matches!(out.status.code(), Some(0 | 1))
            || (out.status.code() == Some(2) && err.contains("no index at"));
        if !ok {
            failures.push(format!("{args:?} -> {:?}: {err}", out.status.code()));
        }
    }
    failures
}

/// SIGPIPE's number on Linux and the BSDs.
fn libc_sigpipe() -> i32 {
    13
}
