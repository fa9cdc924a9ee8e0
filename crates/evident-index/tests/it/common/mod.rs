//! Helpers the index's integration tests share (generic ones live in `evident-testkit`).

// Each test crate uses a subset of these helpers.
#![allow(dead_code)]

use std::path::Path;

#[allow(unused_imports)]
pub use evident_testkit::fs::fixture_repo;
#[allow(unused_imports)]
pub use evident_testkit::git::git;

/// Every row of the index at `root`, ids replaced by what they point at.
pub fn dump(root: &Path) -> Vec<String> {
    evident_index::Index::open(root)
        .unwrap()
        .canonical_dump()
        .unwrap()
}

/// Rebuilds the index from scratch and asserts it equals the current one.
pub fn assert_equals_rebuild(root: &Path, context: &str) {
    let incremental = dump(root);
    let rebuild = evident_index::IndexOptions {
        rebuild: true,
        ..Default::default()
    };
    evident_index::index_repo(root, &rebuild).unwrap();
    let rebuilt = dump(root);
    // Only the rows that differ: the dumps are thousands of rows.
    let only_incremental: Vec<&String> = incremental
        .iter()
        .filter(|r| !rebuilt.contains(r))
        .collect();
    let only_rebuilt: Vec<&String> = rebuilt
        .iter()
        .filter(|r| !incremental.contains(r))
        .collect();
    assert!(
        incremental == rebuilt,
        "{context}: incremental index differs from a rebuild\n\
         only incremental: {only_incremental:#?}\nonly rebuilt: {only_rebuilt:#?}"
    );
}

/// A search for chunks, the unit the index stores (the doors group by file).
pub fn chunk_query(text: impl Into<String>) -> evident_index::SearchQuery {
    evident_index::SearchQuery {
        group: evident_index::SearchGroup::Chunk,
        ..evident_index::SearchQuery::new(text)
    }
}
