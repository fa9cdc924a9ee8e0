//! Call resolution, one rule per expected edge, for every indexed language;
//! and the graph queries built on it.

mod binding_forms;
mod caller_pages;
mod commonjs;
mod declared_packages;
mod export_lists;
mod glob_exports;
mod header_names;
mod js_functions_as_values;
mod js_parameter_patterns;
mod keyword_arguments;
mod local_objects;
mod object_keys;
mod public_paths;
mod python_packages;
mod queries_and_edits;
mod rules_per_language;
mod scip_import;
mod ts_declarations;
mod types_that_flow;
mod unpacking;

use std::path::{Path, PathBuf};

use evident_index::{index_repo, Index, IndexOptions, Kind, Page};
use rusqlite::Connection;

use crate::common;

fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    evident_testkit::fs::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/callgraph"),
        &root,
    );
    index_repo(&root, &IndexOptions::default()).unwrap();
    (dir, root)
}

/// What `def` answers at `path:line:col`.
fn definitions(root: &Path, path: &str, line: u32, col: u32) -> Vec<evident_index::Evidence> {
    Index::open(root)
        .unwrap()
        .definition_at(path, line, Some(col))
        .unwrap()
}

/// A new directory holding `files`, indexed, and its index open.
fn indexed_files(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    evident_testkit::fs::write_all(dir.path(), files);
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    let index = Index::open(dir.path()).unwrap();
    (dir, index)
}

/// `path:line name` of each answer `def` gives at `path:line:col`.
fn answers_at(index: &Index, path: &str, line: u32, col: u32) -> Vec<String> {
    let found = index.definition_at(path, line, Some(col)).unwrap();
    found
        .iter()
        .map(|e| format!("{}:{} {}", e.path, e.start_line, e.name))
        .collect()
}

/// [`answers_at`] the `nth` occurrence of `word` on `line` of `source`,
/// the text of `path`.
fn answers_at_word(
    index: &Index,
    (path, source): (&str, &str),
    line: u32,
    word: &str,
    nth: usize,
) -> Vec<String> {
    let text = source.lines().nth(line as usize - 1).unwrap();
    let col = text.match_indices(word).nth(nth).unwrap().0 as u32 + 1;
    answers_at(index, path, line, col)
}

/// `path:line callee -> target (confidence)` for every resolved call.
fn edges(root: &Path) -> Vec<String> {
    call_rows(
        root,
        "SELECT f.path, c.line, c.callee, t.qualified_name, g.confidence
         FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
         JOIN symbols t ON t.id = g.callee_id ORDER BY f.path, c.line, c.callee",
    )
}

/// `path:line callee -> target (kind)` for every call resolved outside the repository.
fn externals(root: &Path) -> Vec<String> {
    call_rows(
        root,
        "SELECT f.path, c.line, c.callee, x.target, x.kind FROM externals x
         JOIN calls c ON c.id = x.call_id JOIN files f ON f.id = c.file_id
         ORDER BY f.path, c.line, c.callee",
    )
}

/// The rows of `sql` (path, line, callee, target, label), read with SQLite itself.
fn call_rows(root: &Path, sql: &str) -> Vec<String> {
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| {
        Ok(format!(
            "{}:{} {} -> {} ({})",
            r.get::<_, String>(0)?,
            r.get::<_, u32>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn assert_edges(all: &[String], expected: &[&str]) {
    let missing: Vec<&&str> = expected
        .iter()
        .filter(|e| !all.iter().any(|a| a == **e))
        .collect();
    assert!(
        missing.is_empty(),
        "missing edges:\n{missing:#?}\nall edges:\n{all:#?}"
    );
}

/// Calls neither resolved nor known to be outside: `path:line callee`.
fn unresolved(root: &Path) -> Vec<String> {
    call_rows(
        root,
        "SELECT f.path, c.line, c.callee, '-', '-' FROM calls c JOIN files f ON f.id = c.file_id
         WHERE c.id NOT IN (SELECT call_id FROM edges)
           AND c.id NOT IN (SELECT call_id FROM externals)
         ORDER BY f.path, c.line",
    )
    .into_iter()
    .map(|r| r.trim_end_matches(" -> - (-)").to_string())
    .collect()
}
