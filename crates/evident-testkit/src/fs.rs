//! File helpers for building test repositories.

use std::path::{Path, PathBuf};

/// Writes `text` to `path`, creating its directories.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes `text` to `rel` under `root`, creating its directories.
pub fn write_in(root: &Path, rel: &str, text: &str) {
    write(&root.join(rel), text);
}

/// Writes each `(relative path, text)` under `root`.
pub fn write_all(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        write(&root.join(path), text);
    }
}

/// Copies the directory tree `from` to `to`.
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

/// A fresh copy of `crates/evident-index/tests/fixtures/repo` (the mixed-language
/// fixture several crates test against), at `<tempdir>/repo`.
pub fn fixture_repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../evident-index/tests/fixtures/repo");
    copy_dir(&fixture, &root);
    (dir, root)
}
