//! Indexing a repository end to end: resolution, incremental == full, bad input.

mod hostile_inputs_and_runs;
mod long_lines;
mod queries_and_rebuilds;

use std::path::Path;

use evident_index::{index_repo, Index, IndexOptions, Kind, SymbolQuery};
use rusqlite::Connection;

use crate::common;
use common::{dump, fixture_repo};

fn index(root: &Path) -> evident_index::Summary {
    index_repo(root, &IndexOptions::default()).unwrap()
}

use evident_testkit::fs::write_in as write;

fn target_of(root: &Path, path: &str, module: &str) -> Option<String> {
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    conn.query_row(
        "SELECT i.target FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ?1 AND i.module = ?2",
        [path, module],
        |r| r.get(0),
    )
    .unwrap()
}

/// The definitions named exactly `name`.
fn exact_symbols(index: &Index, name: &str) -> Vec<evident_index::Evidence> {
    let query = SymbolQuery {
        exact: true,
        ..Default::default()
    };
    index.symbols(name, &query).unwrap()
}

fn with_parse_cache(dir: &Path) -> IndexOptions {
    IndexOptions {
        parse_cache: Some(evident_index::ParseCacheSettings {
            dir: dir.to_path_buf(),
            max_bytes: 1 << 30,
        }),
        ..IndexOptions::default()
    }
}

/// Files under `root` (outside `.evident`) that `keep` accepts by path.
fn walkdir_count(root: &Path, keep: impl Fn(&str) -> bool) -> u64 {
    fn walk(dir: &Path, root: &Path, keep: &dyn Fn(&str) -> bool, n: &mut u64) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.ends_with(".evident") {
                continue;
            }
            if path.is_dir() {
                walk(&path, root, keep, n);
            } else if keep(&path.strip_prefix(root).unwrap().to_string_lossy()) {
                *n += 1;
            }
        }
    }
    let mut n = 0;
    walk(root, root, &keep, &mut n);
    n
}
