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
