//! Minified and deeply nested code: what a file costs in the index grows
//! with its size, not with its size times its definitions.

use super::*;

/// The full-text index's size for `root`, in bytes of its terms.
fn full_text_bytes(root: &Path) -> i64 {
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    conn.execute_batch(
        "CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, chunks_fts, instance)",
    )
    .unwrap();
    conn.query_row(
        "SELECT coalesce(sum(length(term)), 0) FROM temp.terms",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

/// 5,000 functions on one line: each chunk holds its own columns of the
/// line, so the text indexed is about the file's, not 5,000 copies of it.
#[test]
fn a_minified_line_is_indexed_once_not_per_definition() {
    let (_tmp, root) = fixture_repo();
    let line: String = (0..5000)
        .map(|i| format!("function a{i}(b){{return b+{i}}}"))
        .collect();
    write(&root, "dist/bundle.min.js", &format!("{line}\n"));
    index(&root);
    let before = full_text_bytes(&root);
    assert!(exact_symbols(&Index::open(&root).unwrap(), "a4999").len() == 1);
    std::fs::remove_file(root.join("dist/bundle.min.js")).unwrap();
    index(&root);
    let without = full_text_bytes(&root);
    let bundle_terms = before - without;
    assert!(
        bundle_terms < 8 * line.len() as i64,
        "{bundle_terms} bytes of terms for a {} byte line",
        line.len()
    );
}

/// Functions nested 3,000 deep: past the depth limit the code is its
/// ancestor's, so names do not grow with the depth and the index stays small.
#[test]
fn deep_nesting_keeps_names_and_chunks_bounded() {
    let (_tmp, root) = fixture_repo();
    let depth = 3000;
    let mut text: String = (0..depth)
        .map(|i| format!("function f{i}(a){{\n"))
        .collect();
    text.push_str("return 1;\n");
    text.push_str(&"}\n".repeat(depth));
    write(&root, "deep.js", &text);
    let summary = index(&root);
    let index = Index::open(&root).unwrap();
    let deepest = exact_symbols(&index, "f255");
    assert_eq!(deepest.len(), 1);
    assert!(exact_symbols(&index, "f256").is_empty());
    let size = std::fs::metadata(root.join(".evident/index.db"))
        .unwrap()
        .len();
    assert!(
        size < 40 * text.len() as u64 + 2_000_000,
        "{size} bytes of index for {} bytes ({} definitions)",
        text.len(),
        summary.definitions
    );
}
