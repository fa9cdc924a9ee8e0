//! Hostile inputs and runs.

use super::*;

#[cfg(unix)]
#[test]
fn symlinks_loops_fifos_and_unreadable_files() {
    let (_tmp, root) = fixture_repo();
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "outside.py",
        "def outside_fn():\n    pass\n",
    );
    std::os::unix::fs::symlink(outside.path().join("outside.py"), root.join("out_link.py"))
        .unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("out_dir")).unwrap();
    std::os::unix::fs::symlink(root.join("loop_b"), root.join("loop_a")).unwrap();
    std::os::unix::fs::symlink(root.join("loop_a"), root.join("loop_b")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("app/self_loop")).unwrap();
    let fifo = root.join("pipe.py");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    write(&root, "locked.py", "def locked_fn():\n    pass\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        root.join("locked.py"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let readable_anyway = std::fs::read(root.join("locked.py")).is_ok(); // true as root
                                                                         // Names the path sandbox refuses to read are not indexed either.
    write(&root, "app/%2e%2e.py", "def encoded_fn():\n    pass\n");
    write(&root, "app/back\\slash.py", "def slashed_fn():\n    pass\n");

    let summary = index(&root);
    let reason = |p: &str| {
        summary
            .skipped
            .iter()
            .find(|s| s.rel == p)
            .map(|s| s.reason.clone())
    };
    assert_eq!(
        reason("out_link.py").as_deref(),
        Some("symlink (not followed)")
    );
    assert_eq!(reason("pipe.py").as_deref(), Some("not a regular file"));
    assert_eq!(
        reason("app/%2e%2e.py").as_deref(),
        Some("a name the path sandbox refuses: it looks URL-encoded (%2e): paths are taken literally")
    );
    assert_eq!(
        reason("app/back\\slash.py").as_deref(),
        Some(
            "a name the path sandbox refuses: it contains a backslash: separate directories with /"
        )
    );
    let index = Index::open(&root).unwrap();
    for name in ["encoded_fn", "slashed_fn"] {
        assert!(index
            .symbols(name, &SymbolQuery::default())
            .unwrap()
            .is_empty());
    }
    assert!(index
        .symbols("outside_fn", &SymbolQuery::default())
        .unwrap()
        .is_empty());
    if readable_anyway {
        assert_eq!(
            index
                .symbols("locked_fn", &SymbolQuery::default())
                .unwrap()
                .len(),
            1
        );
    } else {
        assert!(
            reason("locked.py").unwrap().starts_with("unreadable"),
            "{:?}",
            summary.skipped
        );
    }
    assert_eq!(
        index
            .symbols("get_collection_name", &SymbolQuery::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn missing_paths_missing_index_and_schema_mismatch_are_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let err = index_repo(&tmp.path().join("nope"), &IndexOptions::default()).unwrap_err();
    assert!(err.to_string().ends_with("does not exist"), "{err}");
    std::fs::write(tmp.path().join("file.py"), "x = 1\n").unwrap();
    let err = index_repo(&tmp.path().join("file.py"), &IndexOptions::default()).unwrap_err();
    assert!(err.to_string().contains("is not a directory"), "{err}");
    let err = Index::open(tmp.path()).err().unwrap();
    assert!(err.to_string().contains("run `evident index`"), "{err}");

    // Not a git repository: indexes all the same.
    let summary = index(tmp.path());
    assert_eq!(summary.files, 1);

    let conn = Connection::open(tmp.path().join(".evident/index.db")).unwrap();
    conn.execute(
        "UPDATE meta SET value = '999' WHERE key = 'schema_version'",
        [],
    )
    .unwrap();
    drop(conn);
    let err = Index::open(tmp.path()).err().unwrap().to_string();
    assert!(
        err.contains("schema version 999") && err.contains("evident index --rebuild"),
        "{err}"
    );
    let err = index_repo(tmp.path(), &IndexOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("--rebuild"), "{err}");
    index_repo(
        tmp.path(),
        &IndexOptions {
            rebuild: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(Index::open(tmp.path()).is_ok());

    std::fs::write(
        tmp.path().join(".evident/index.db"),
        b"this is not sqlite at all, not even close....",
    )
    .unwrap();
    let _ = std::fs::remove_file(tmp.path().join(".evident/index.db-wal"));
    let _ = std::fs::remove_file(tmp.path().join(".evident/index.db-shm"));
    let err = Index::open(tmp.path()).err().unwrap().to_string();
    assert!(
        err.contains("is damaged") && err.contains("run `evident index`"),
        "{err}"
    );
}

#[test]
fn first_index_of_a_git_repo_excludes_the_index_dir() {
    let (_tmp, root) = fixture_repo();
    let git = |args: &[&str]| common::git(&root, args);
    git(&["init", "-q"]);
    index(&root);
    let exclude = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.matches(".evident/").count(), 1);
    assert!(!git(&["status", "--porcelain", "--untracked-files=all"]).contains(".evident"));
    index_repo(
        &root,
        &IndexOptions {
            rebuild: true,
            ..Default::default()
        },
    )
    .unwrap();
    let exclude = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.matches(".evident/").count(), 1, "added once");
}

#[test]
fn interrupted_run_keeps_a_consistent_index_and_resumes() {
    let (_tmp, root) = fixture_repo();
    for i in 0..40 {
        write(
            &root,
            &format!("gen/m{i}.py"),
            &format!("def gen_{i}():\n    return {i}\n"),
        );
    }
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // A progress sink that presses Ctrl-C after the first file.
    struct StopAfterFirst(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl evident_index::Progress for StopAfterFirst {
        fn start(&self, _: u64) {}
        fn advance(&self, _: &str) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        fn finish(&self) {}
    }
    let options = IndexOptions {
        batch_size: Some(4),
        cancel: Some(cancel.clone()),
        progress: Some(std::sync::Arc::new(StopAfterFirst(cancel.clone()))),
        ..Default::default()
    };
    let err = index_repo(&root, &options).unwrap_err();
    assert!(matches!(err, evident_index::Error::Interrupted), "{err}");
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let files: i64 = conn
        .query_row("SELECT count(*) FROM files", [], |r| r.get(0))
        .unwrap();
    assert!(
        files > 0 && files < 52,
        "some but not all files committed: {files}"
    );
    let state: String = conn
        .query_row("SELECT value FROM meta WHERE key = 'run_state'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(state, "in_progress");
    drop(conn);
    dump(&root); // no orphans

    let resumed = index(&root);
    assert_eq!(resumed.files, 52);
    assert!(
        resumed.parsed < 53,
        "committed batches are not parsed again"
    );
    common::assert_equals_rebuild(&root, "after the edits");
}

/// A repository holding all sixteen languages (the extraction samples and
/// the call-rule projects): after adds, edits, deletions and renames in
/// several languages, the incremental index equals a rebuild, row for row.
#[test]
fn sixteen_languages_incremental_equals_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    evident_testkit::fs::copy_dir(&fixtures.join("callgraph"), &root);
    evident_testkit::fs::copy_dir(&fixtures.join("lang"), &root.join("samples"));
    let first = index(&root);
    let languages: std::collections::BTreeSet<String> = {
        let conn = Connection::open(root.join(".evident/index.db")).unwrap();
        let mut stmt = conn.prepare("SELECT DISTINCT lang FROM files").unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert!(languages.len() >= 16, "{languages:?} ({first:?})");

    // C: the definition leaves util.c (calls fall back to the prototype),
    // and a second file calls it.
    write(&root, "c/src/util.c", "#include \"util.h\"\n");
    write(
        &root,
        "c/src/more.c",
        "#include \"util.h\"\nint more(void) { return util_add(2, 3); }\n",
    );
    // C++: the header loses `scale`; Ruby: a file moves; PHP: a method is
    // renamed; Kotlin: a new file in the package; Lua: the module is deleted;
    // Bash: the sourced script gains a function.
    write(
        &root,
        "cpp/include/shape.hpp",
        "#pragma once\nnamespace geo {\nclass Shape {\npublic:\n    double area() const;\n    static Shape unit();\n    void grow();\n};\n}\n",
    );
    std::fs::rename(
        root.join("rb/lib/shop/pricing.rb"),
        root.join("rb/lib/shop/prices.rb"),
    )
    .unwrap();
    let invoice = std::fs::read_to_string(root.join("php/src/Billing/Invoice.php")).unwrap();
    write(
        &root,
        "php/src/Billing/Invoice.php",
        &invoice.replace("function log(", "function record("),
    );
    write(
        &root,
        "kt/src/main/kotlin/com/acme/app/Extra.kt",
        "package com.acme.app\n\nfun extra() = Helper().help()\n",
    );
    std::fs::remove_file(root.join("lua/acme/util.lua")).unwrap();
    write(
        &root,
        "sh/lib/log.sh",
        "log_line() {\n    echo \"$1\"\n}\ngit() {\n    command git \"$@\"\n}\n",
    );
    index(&root);
    common::assert_equals_rebuild(&root, "after edits in ten languages");

    // And back: the definition returns to util.c, the module to its place.
    write(
        &root,
        "c/src/util.c",
        "#include \"util.h\"\n\nint util_add(int a, int b) { return a + b; }\n",
    );
    write(
        &root,
        "lua/acme/util.lua",
        "local M = {}\nfunction M.sum(a, b)\n  return a + b\nend\nreturn M\n",
    );
    index(&root);
    common::assert_equals_rebuild(&root, "after restoring");
}

/// A giant (size limit raised) is indexed in part: symbols from its first
/// lines, the whole of it searchable, and the summary says so.
#[test]
fn a_giant_is_indexed_in_part_and_searched_to_its_end() {
    use evident_index::extract::MAX_FACTS_PER_FILE;

    let (_tmp, root) = fixture_repo();
    let count = MAX_FACTS_PER_FILE + MAX_FACTS_PER_FILE / 5;
    let giant: String = (0..count).map(|k| format!("def f{k}(): pass\n")).collect();
    write(&root, "giant.py", &giant);
    let summary = index_repo(
        &root,
        &IndexOptions {
            max_file_size: Some(4_000_000),
            ..Default::default()
        },
    )
    .unwrap();
    let part = summary.in_part.iter().find(|p| p.rel == "giant.py");
    let reason = &part.expect("giant.py is reported").reason;
    assert!(reason.starts_with("symbols from lines 1-"), "{reason}");
    let index = Index::open(&root).unwrap();
    let exact = |name: &str| exact_symbols(&index, name);
    assert_eq!(exact("f10").len(), 1);
    let last = format!("f{}", count - 1);
    assert!(exact(&last).is_empty(), "past the cap: no symbol");
    let hits = index.search(&crate::common::chunk_query(&last)).unwrap();
    assert!(
        hits.iter().any(|h| h.path == "giant.py"
            && h.start_line <= count as u32
            && h.end_line >= count as u32),
        "the last line is still searched: {hits:?}"
    );
    let incremental = dump(&root);
    let rebuild = IndexOptions {
        rebuild: true,
        max_file_size: Some(4_000_000),
        ..Default::default()
    };
    index_repo(&root, &rebuild).unwrap();
    assert!(incremental == dump(&root), "a rebuild gives the same rows");
}

/// Another copy of a repository (a clone, a worktree, the same branch
/// checked out elsewhere) takes every source file's facts from the parse
/// cache, and its index equals one built by parsing, row for row. Bytes
/// parsed before at a path come from the cache again after an edit is undone
/// (a branch switched back); new bytes are parsed.
#[test]
fn the_parse_cache_serves_another_copy_and_changes_no_row() {
    let cache = tempfile::tempdir().unwrap();
    let options = with_parse_cache(cache.path());
    let (_first_dir, first) = fixture_repo();
    let cold = index_repo(&first, &options).unwrap();
    assert_eq!(cold.from_cache, 0);
    // Documents are cut into sections, not parsed: only source files are cached.
    let sources = walkdir_count(&first, |p| evident_index::lang::for_path(p).is_some());
    assert!(sources > 10, "{sources} source files");

    let (_second_dir, second) = fixture_repo();
    let warm = index_repo(&second, &options).unwrap();
    assert_eq!(warm.parsed, cold.parsed);
    assert_eq!(
        warm.from_cache, sources,
        "every source file's facts come from the cache"
    );
    common::assert_equals_rebuild(&second, "a copy indexed from the parse cache");

    let path = second.join("app/main.py");
    let original = std::fs::read_to_string(&path).unwrap();
    write(
        &second,
        "app/main.py",
        &format!("{original}\ndef added():\n    return 1\n"),
    );
    let edited = index_repo(&second, &options).unwrap();
    assert_eq!(
        (edited.parsed, edited.from_cache),
        (1, 0),
        "new bytes are parsed"
    );
    write(&second, "app/main.py", &original);
    let undone = index_repo(&second, &options).unwrap();
    assert_eq!(
        (undone.parsed, undone.from_cache),
        (1, 1),
        "bytes parsed before are not"
    );
    common::assert_equals_rebuild(&second, "after an edit undone through the cache");
}

/// A file the index cannot hold (binary bytes in a `.py`) is walked on every
/// run, yet it is no new file each time: an edit re-resolves the edited
/// file's calls only, as in a repository without it, rather than every
/// import of every file. Deleting it does change the file set (and an
/// import's target).
#[test]
fn a_file_that_cannot_be_indexed_is_no_new_file_on_every_run() {
    let files = [
        ("lib.py", "def helper():\n    return 1\n"),
        (
            "a.py",
            "from lib import helper\n\ndef a():\n    return helper()\n",
        ),
        (
            "b.py",
            "from lib import helper\n\ndef b():\n    return helper() + helper()\n",
        ),
        // Its import's target is `blob.py` while that file is walked.
        (
            "c.py",
            "from blob import thing\n\ndef c():\n    return thing()\n",
        ),
    ];
    let resolved_after_edit = |with_binary: bool| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        evident_testkit::fs::write_all(root, &files);
        if with_binary {
            std::fs::write(root.join("blob.py"), b"x = 1\n\0\0\0\n").unwrap();
        }
        index(root);
        write(root, "a.py", &format!("# edited\n{}", files[1].1));
        let edit = index(root);
        if with_binary {
            assert_eq!(edit.skipped.len(), 1, "{:?}", edit.skipped);
            assert_eq!(edit.added, 0, "the binary file is not new: {edit:?}");
            // Leaving the file set, it changes what `c.py` imports.
            std::fs::remove_file(root.join("blob.py")).unwrap();
            index(root);
            common::assert_equals_rebuild(root, "after deleting the binary file");
        }
        edit.resolved_calls
    };
    assert_eq!(resolved_after_edit(false), 1);
    assert_eq!(resolved_after_edit(true), 1);
}

/// A definition that keeps its qualified name and kind across an edit keeps
/// its id, so the edges into it from other files are not rewritten; one
/// whose key now occurs twice gets a new id. The index still equals a
/// rebuild, definitions reordered or not.
#[test]
fn an_edited_files_definitions_keep_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "lib.py",
                "def a():\n    return 1\n\ndef b():\n    return a()\n\nclass C:\n    def m(self):\n        return b()\n",
            ),
            (
                "use.py",
                "from lib import a, b, C\n\ndef f():\n    return a() + b() + C().m()\n",
            ),
        ],
    );
    index(root);
    let ids = |root: &Path| -> Vec<(String, i64)> {
        let conn = Connection::open(root.join(".evident/index.db")).unwrap();
        let mut stmt = conn
            .prepare("SELECT qualified_name, id FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = 'lib.py') ORDER BY qualified_name, id")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        rows
    };
    let before = ids(root);
    // `b` before `a`, a new `g`, and `C.m` defined twice.
    write(
        root,
        "lib.py",
        "def g():\n    return 0\n\ndef b():\n    return a() + g()\n\ndef a():\n    return 2\n\n\
         class C:\n    def m(self):\n        return b()\n    def m(self):\n        return a()\n",
    );
    index(root);
    let after = ids(root);
    let id_of = |rows: &[(String, i64)], name: &str| -> Vec<i64> {
        rows.iter()
            .filter(|(n, _)| n == name)
            .map(|(_, id)| *id)
            .collect()
    };
    for kept in ["lib.a", "lib.b", "lib.C"] {
        assert_eq!(
            id_of(&after, kept),
            id_of(&before, kept),
            "{kept} keeps its id"
        );
    }
    let old_max = before.iter().map(|(_, id)| *id).max().unwrap();
    let new_m = id_of(&after, "lib.C.m");
    assert_eq!(new_m.len(), 2);
    assert!(
        new_m.iter().all(|id| *id > old_max),
        "a key now twice: new ids {new_m:?}"
    );
    assert!(id_of(&after, "lib.g")[0] > old_max);
    common::assert_equals_rebuild(root, "after reordering, adding and doubling definitions");
}
