//! Queries and rebuilds.

use super::*;

#[test]
fn imports_resolve_across_languages() {
    let (_tmp, root) = fixture_repo();
    let summary = index(&root);
    assert_eq!(summary.files, 12);
    assert!(summary.created);
    // (importing file, module text, expected target, the rule it pins)
    let expected = [
        (
            "app/main.py",
            "pkg.mod",
            "pkg/mod.py",
            "absolute from the root",
        ),
        ("app/main.py", "helpers", "app/helpers.py", "sibling import"),
        (
            "app/main.py",
            "rag_common",
            "src/rag_common.py",
            "source root",
        ),
        (
            "app/main.py",
            "pkg.sub.deep",
            "pkg/sub/deep.py",
            "from-import of a module",
        ),
        (
            "pkg/sub/deep.py",
            "..mod",
            "pkg/mod.py",
            "relative, two dots",
        ),
        ("pkg/__init__.py", ".mod", "pkg/mod.py", "relative, one dot"),
        (
            "web/app.ts",
            "./util",
            "web/util/index.ts",
            "directory index",
        ),
        ("web/app.ts", "./api", "web/api.js", "extension probing"),
        (
            "crate_a/src/lib.rs",
            "crate::store",
            "crate_a/src/store/mod.rs",
            "crate path",
        ),
        (
            "crate_a/src/lib.rs",
            "self",
            "crate_a/src/store/mod.rs",
            "mod store;",
        ),
    ];
    for (importer, module, target, rule) in expected {
        assert_eq!(
            target_of(&root, importer, module).as_deref(),
            Some(target),
            "{rule}"
        );
    }
}

#[test]
fn symbols_answer_with_evidence() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    let index = Index::open(&root).unwrap();

    let hits = index
        .symbols("get_collection_name", &SymbolQuery::default())
        .unwrap();
    assert_eq!(hits.len(), 1);
    let hit = &hits[0];
    assert_eq!(
        (hit.path.as_str(), hit.start_line, hit.end_line, hit.kind),
        ("src/rag_common.py", 4, 6, Kind::Function)
    );
    assert!(hit.snippet.starts_with("def get_collection_name(kind):"));
    assert_eq!(
        hit.qualified_name.as_deref(),
        Some("src.rag_common.get_collection_name")
    );

    // Exact first, then case-insensitive and qualified-suffix matches.
    let computes = index.symbols("compute", &SymbolQuery::default()).unwrap();
    assert_eq!(computes.len(), 2);
    assert!(index
        .symbols(
            "COMPUTE",
            &SymbolQuery {
                exact: true,
                ..Default::default()
            }
        )
        .unwrap()
        .is_empty());
    assert_eq!(
        index
            .symbols("COMPUTE", &SymbolQuery::default())
            .unwrap()
            .len(),
        2
    );
    let suffix = index
        .symbols("Engine.compute", &SymbolQuery::default())
        .unwrap();
    assert_eq!((suffix.len(), suffix[0].kind), (1, Kind::Method));
    let methods = index
        .symbols(
            "compute",
            &SymbolQuery {
                kind: Some(Kind::Method),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(methods.len(), 1);
    let under_pkg = index
        .symbols(
            "walk",
            &SymbolQuery {
                path: Some("pkg/sub".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(under_pkg[0].path, "pkg/sub/deep.py");
    assert!(index
        .symbols(
            "walk",
            &SymbolQuery {
                path: Some("web".into()),
                ..Default::default()
            }
        )
        .unwrap()
        .is_empty());
}

#[test]
fn importers_answer_by_module_and_by_path() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    let index = Index::open(&root).unwrap();

    let importers = index.importers("rag_common").unwrap();
    assert_eq!(importers.len(), 1);
    assert_eq!(
        (importers[0].path.as_str(), importers[0].start_line),
        ("app/main.py", 6)
    );
    assert_eq!(
        importers[0].snippet,
        "from rag_common import get_collection_name"
    );
    let by_path = index.importers("pkg/mod.py").unwrap();
    let paths: Vec<(&str, u32)> = by_path
        .iter()
        .map(|e| (e.path.as_str(), e.start_line))
        .collect();
    assert_eq!(
        paths,
        vec![
            ("app/main.py", 2),
            ("app/main.py", 3),
            ("pkg/__init__.py", 1),
            ("pkg/sub/deep.py", 1)
        ]
    );
    assert!(
        by_path[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("pkg.mod as m"),
        "{:?}",
        by_path[0].reason
    );
    let by_module: Vec<u32> = index
        .importers("pkg.mod")
        .unwrap()
        .iter()
        .map(|e| e.start_line)
        .collect();
    assert!(by_module.contains(&2) && by_module.contains(&3));
}

#[test]
fn outlines_and_reads_answer_with_evidence() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    let index = Index::open(&root).unwrap();

    let outline = index.outline("pkg/mod.py").unwrap();
    let tree: Vec<(String, u32)> = outline
        .iter()
        .map(|e| (e.name.clone(), e.depth.unwrap()))
        .collect();
    assert_eq!(
        tree,
        vec![
            ("Engine".into(), 0),
            ("compute".into(), 1),
            ("compute".into(), 0)
        ]
    );

    let read = index.read("src/rag_common.py", 4, 5).unwrap();
    assert_eq!(
        read.snippet,
        "def get_collection_name(kind):\n    \"\"\"The collection for a kind of document.\"\"\""
    );
    assert_eq!(read.name, "src.rag_common.get_collection_name");
    let clipped = index.read("app/helpers.py", 1, 300).unwrap();
    assert_eq!((clipped.start_line, clipped.end_line), (1, 2));
}

#[test]
fn read_refuses_what_it_must() {
    let (_tmp, root) = fixture_repo();
    write(&root, ".env", "SECRET=1\n");
    write(&root, "keys/server.pem", "-----BEGIN-----\n");
    index(&root);
    let index = Index::open(&root).unwrap();
    let err =
        |path: &str, start: i64, end: i64| index.read(path, start, end).unwrap_err().to_string();
    assert!(err("app/main.py", 1, 401).contains("at most 400 lines"));
    assert!(err("app/main.py", 0, 3).contains("before line 1"));
    assert!(err("app/main.py", -5, 3).contains("before line 1"));
    assert!(err("app/main.py", 9, 3).contains("before start line"));
    assert!(err("app/main.py", 500, 501).contains("past the end"));
    assert!(err("../outside.py", 1, 2).contains("leaves the repository"));
    assert!(err("/etc/passwd", 1, 2).contains("outside the repository"));
    assert!(err(".env", 1, 1).contains("secret"));
    assert!(err("keys/server.pem", 1, 1).contains("secret"));
    assert!(err(".git/config", 1, 1).contains("secret"));
    assert!(err("nope.py", 1, 1).contains("does not exist"));
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.py"), "x = 1\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("x.py"), root.join("link.py")).unwrap();
        assert!(err("link.py", 1, 1).contains("symlink that leads outside"));
    }
}

#[test]
fn incremental_equals_full_rebuild_after_edits() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    let before = dump(&root);

    // add: a new file that also satisfies a previously unresolved import
    write(
        &root,
        "app/extra.py",
        "import missing_mod\n\ndef extra():\n    return missing_mod.go()\n",
    );
    write(&root, "missing_mod.py", "def go():\n    return 1\n");
    // modify: change a definition and its imports
    write(&root, "pkg/mod.py", "from .sub import deep\n\n\ndef compute(value, scale=2):\n    return deep.walk(value) * scale\n");
    // delete: a file others import (their targets must be cleared)
    std::fs::remove_file(root.join("app/helpers.py")).unwrap();
    // rename: the TypeScript utility moves
    std::fs::rename(
        root.join("web/util/index.ts"),
        root.join("web/util/format.ts"),
    )
    .unwrap();
    // touch without change: re-stat only
    let api = std::fs::read_to_string(root.join("web/api.js")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(root.join("web/api.js"), api).unwrap();

    let summary = index(&root);
    assert_eq!(
        summary.parsed, 4,
        "only added, modified and renamed files are parsed: {summary:?}"
    );
    assert_eq!(summary.removed, 2);
    let incremental = dump(&root);
    assert_ne!(before, incremental);
    assert_eq!(
        target_of(&root, "app/main.py", "helpers"),
        None,
        "deleted target is unresolved"
    );
    assert_eq!(
        target_of(&root, "app/extra.py", "missing_mod").as_deref(),
        Some("missing_mod.py")
    );
    assert_eq!(
        target_of(&root, "web/app.ts", "./util"),
        None,
        "renamed-away index.ts"
    );

    common::assert_equals_rebuild(&root, "after add, modify, delete and rename");

    // And back: restoring files re-resolves imports in unchanged files.
    write(
        &root,
        "app/helpers.py",
        "def clean(text):\n    return text\n",
    );
    index(&root);
    assert_eq!(
        target_of(&root, "app/main.py", "helpers").as_deref(),
        Some("app/helpers.py")
    );
    common::assert_equals_rebuild(&root, "after the edits");
}

#[test]
fn second_run_without_changes_parses_nothing() {
    let (_tmp, root) = fixture_repo();
    let first = index(&root);
    let second = index(&root);
    assert_eq!(
        (second.parsed, second.unchanged, second.files),
        (0, first.files, first.files)
    );
    assert_eq!(second.definitions, first.definitions);
    let index = Index::open(&root).unwrap();
    assert!(!index.staleness().unwrap().is_stale());
}

/// A resident process holds the write-ahead log open: a run's end then
/// copies nothing into the database file (the log keeps the run's pages),
/// readers see the run all the same, and a checkpoint copies the log later.
#[test]
fn a_kept_log_outlives_a_run_and_a_checkpoint_copies_it() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    let log = root.join(".evident/index.db-wal");
    let log_len = || std::fs::metadata(&log).map_or(0, |m| m.len());
    assert_eq!(log_len(), 0, "the last connection's close copies the log");
    let keeper = evident_index::store::keep_log(&root).unwrap();
    write(&root, "added.py", "def added_by_the_test():\n    pass\n");
    index(&root);
    assert!(log_len() > 0, "a kept log is not copied when a run ends");
    let found = exact_symbols(&Index::open(&root).unwrap(), "added_by_the_test");
    assert_eq!(found.len(), 1, "readers see what the log holds");
    let before = dump(&root);
    evident_index::store::checkpoint_log(&root).unwrap();
    drop(keeper);
    assert_eq!(log_len(), 0, "with the keeper gone, the log is emptied");
    assert_eq!(dump(&root), before);
}

/// Facts extracted under other rules (an index an older evident wrote) are
/// not kept: the next run extracts every file again, as a rebuild would.
#[test]
fn an_index_written_under_other_rules_is_built_again() {
    let (_tmp, root) = fixture_repo();
    let first = index(&root);
    let db = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
    let layout: String = db
        .query_row("SELECT value FROM meta WHERE key = 'layout'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let (kept, rules) = layout
        .split_once("\nrules ")
        .expect("the layout names the rules");
    assert!(!rules.is_empty());
    db.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'layout'",
        [format!("{kept}\nrules 0.0.0 0000000000000000")],
    )
    .unwrap();
    drop(db);
    let second = index(&root);
    assert_eq!((second.parsed, second.files), (first.files, first.files));
    assert_eq!(index(&root).parsed, 0, "the new rules are remembered");
}

/// A run killed before its first commit leaves a database with no tables:
/// readers say there is no index yet (not that it is damaged), and the next
/// run builds it.
#[test]
fn a_database_without_tables_is_no_index_yet() {
    let (_tmp, root) = fixture_repo();
    std::fs::create_dir_all(root.join(".evident")).unwrap();
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    drop(conn);
    match Index::open(&root) {
        Err(e @ evident_index::Error::NoIndex(_)) => {
            assert!(e.to_string().contains("run `evident index`"), "{e}")
        }
        Err(other) => panic!("expected NoIndex, got {other}"),
        Ok(_) => panic!("an empty database opened as an index"),
    }
    assert!(index(&root).files > 0);
    assert!(Index::open(&root).is_ok());
}

/// The canonical dump (what crash tests compare with a clean build) sees
/// the full-text index too, not only its row count.
#[test]
fn the_canonical_dump_covers_full_text_terms() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    let before = dump(&root);
    assert!(before.iter().any(|row| row.starts_with("fts | ")));
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let id: i64 = conn
        .query_row("SELECT min(id) FROM chunks", [], |r| r.get(0))
        .unwrap();
    conn.execute("DELETE FROM chunks_fts WHERE rowid = ?1", [id])
        .unwrap();
    conn.execute(
        "INSERT INTO chunks_fts(rowid, name, signature_doc, body, path) VALUES (?1, 'x', '', 'other words', 'p')",
        [id],
    )
    .unwrap();
    drop(conn);
    let after = dump(&root);
    assert_eq!(before.len(), after.len());
    assert_ne!(before, after, "a rewritten full-text row went unseen");
}

#[test]
fn staleness_reports_changes_since_the_index() {
    let (_tmp, root) = fixture_repo();
    index(&root);
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        &root,
        "app/helpers.py",
        "def clean(text):\n    return text\n",
    );
    write(&root, "new.py", "x = 1\n");
    std::fs::remove_file(root.join("web/api.js")).unwrap();
    let stale = Index::open(&root).unwrap().staleness().unwrap();
    assert_eq!(stale.modified, vec!["app/helpers.py"]);
    assert_eq!(stale.added, vec!["new.py"]);
    assert_eq!(stale.deleted, vec!["web/api.js"]);
}

#[test]
fn ignored_hidden_large_binary_and_secret_files_are_left_out() {
    let (_tmp, root) = fixture_repo();
    write(&root, "build/gen.py", "def ignored():\n    pass\n");
    write(&root, ".hidden/tool.py", "def hidden():\n    pass\n");
    write(&root, "big.py", &"x = 1\n".repeat(200_000));
    std::fs::write(root.join("blob.py"), b"def a():\x00\x01\x02 pass").unwrap();
    write(&root, "evident.toml", "[index]\nexclude = [\"web/**\"]\n");
    let summary = index(&root);
    let skipped: Vec<(&str, &str)> = summary
        .skipped
        .iter()
        .map(|s| (s.rel.as_str(), s.reason.as_str()))
        .collect();
    assert!(
        skipped
            .iter()
            .any(|(p, r)| *p == "big.py"
                && r.starts_with("too large (1200000 bytes > limit 1048576)")),
        "{skipped:?}"
    );
    assert!(
        skipped
            .iter()
            .any(|(p, r)| *p == "blob.py" && r.starts_with("binary")),
        "{skipped:?}"
    );
    let index_ = Index::open(&root).unwrap();
    for name in ["ignored", "hidden", "format"] {
        assert!(
            index_
                .symbols(name, &SymbolQuery::default())
                .unwrap()
                .is_empty(),
            "{name} should not be indexed"
        );
    }
    assert!(
        !index_.staleness().unwrap().is_stale(),
        "skipped files are not 'added'"
    );
    // A bigger limit takes the large file in.
    let summary = index_repo(
        &root,
        &IndexOptions {
            max_file_size: Some(2_000_000),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(!summary.skipped.iter().any(|s| s.rel == "big.py"));
}

#[test]
fn bad_files_yield_what_they_can_and_lose_nothing() {
    let (_tmp, root) = fixture_repo();
    // Latin-1, not UTF-8.
    std::fs::write(
        root.join("latin.py"),
        b"# caf\xe9\ndef latin_fn():\n    return '\xe9'\n",
    )
    .unwrap();
    write(&root, "broken.py", "def good_before():\n    pass\n\ndef broken(:\n    return (\n\ndef good_after():\n    pass\n");
    write(&root, "empty.py", "");
    let deep = format!("x = {}1{}\n", "[".repeat(3000), "]".repeat(3000));
    write(&root, "deep.py", &deep);
    let nested_fns: String = (0..200)
        .map(|i| format!("{}def f{i}():\n", "    ".repeat(i)))
        .collect::<String>()
        + &format!("{}pass\n", "    ".repeat(200));
    write(&root, "nested.py", &nested_fns);
    let long: String = (0..10_000)
        .map(|i| format!("def fn_{i}():\n    return {i}\n"))
        .collect();
    write(&root, "long.py", &long);
    write(
        &root,
        "bad.ts",
        "export function ok(): number { return 1 }\nclass {{{{ \n",
    );

    let summary = index(&root);
    assert_eq!(summary.files, 12 + 7);
    assert!(summary.syntax_errors >= 2, "{summary:?}");
    let index = Index::open(&root).unwrap();
    let one = |name: &str| exact_symbols(&index, name);
    assert_eq!(one("latin_fn").len(), 1);
    assert_eq!(one("latin_fn")[0].start_line, 2);
    assert_eq!(
        one("good_before").len(),
        1,
        "partial trees still yield definitions"
    );
    assert_eq!(one("good_after").len(), 1);
    assert_eq!(one("fn_9999")[0].start_line, 19_999);
    assert_eq!(
        one("f199")[0]
            .qualified_name
            .as_deref()
            .unwrap()
            .matches('.')
            .count(),
        200
    );
    assert_eq!(one("ok").len(), 1);
    assert!(index.outline("empty.py").unwrap().is_empty());
    // The good files are all still there.
    assert_eq!(one("get_collection_name").len(), 1);
}

/// Every file under `root` but the index's own directory, with its bytes
/// and modification time.
fn tree(root: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".evident" {
                continue;
            }
            if path.is_dir() {
                dirs.push(path);
            } else {
                let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                out.push((rel, std::fs::read(&path).unwrap(), modified));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn indexing_and_queries_write_only_under_the_index_directory() {
    let (_tmp, root) = fixture_repo();
    let before = tree(&root);
    index(&root);
    let index = Index::open(&root).unwrap();
    index.symbols("compute", &SymbolQuery::default()).unwrap();
    index.importers("rag_common").unwrap();
    index.search(&common::chunk_query("collection")).unwrap();
    index.read("src/rag_common.py", 1, 3).unwrap();
    // Not a git work tree: `.git/info/exclude` is not written either.
    assert_eq!(tree(&root), before, "a file outside .evident/ changed");
}
