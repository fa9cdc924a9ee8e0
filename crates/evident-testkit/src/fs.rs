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

/// The small Python repository most agent and CLI tests ask about: a
/// helper (`get_collection_name`), a file that imports it by name and one
/// that imports its module.
pub const RAG_FILES: &[(&str, &str)] = &[
    (
        "rag_common.py",
        "PREFIX = \"rag\"\n\n\ndef get_collection_name(kind):\n    return f\"{PREFIX}_{kind}\"\n",
    ),
    (
        "ingest.py",
        "from rag_common import get_collection_name\n\n\ndef ingest(doc):\n    return get_collection_name(doc.kind)\n",
    ),
    (
        "query.py",
        "import rag_common\n\n\ndef search(q):\n    return rag_common.get_collection_name(q.kind)\n",
    ),
];

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
