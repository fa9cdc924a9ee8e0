//! Helpers shared by the integration tests of `evident-index` and `evident`.

// Each test crate uses a subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A fresh copy of `crates/evident-index/tests/fixtures/repo` in a temporary directory.
pub fn fixture_repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    // Both crates sit side by side under `crates/`.
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../evident-index/tests/fixtures/repo");
    copy_dir(&fixture, &root);
    (dir, root)
}

/// Every row of the index at `root`, ids replaced by what they point at.
pub fn dump(root: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
    evident_index::store::canonical_dump(&conn).unwrap()
}

/// Rebuilds the index from scratch and asserts it equals the current one.
pub fn assert_equals_rebuild(root: &Path, context: &str) {
    let incremental = dump(root);
    let rebuild = evident_index::IndexOptions {
        rebuild: true,
        ..Default::default()
    };
    evident_index::index_repo(root, &rebuild).unwrap();
    assert_eq!(
        incremental,
        dump(root),
        "{context}: incremental index differs from a rebuild"
    );
}

/// Runs git in `root` (with an identity, so commits work anywhere) and returns stdout.
pub fn git(root: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
