//! Change detection in git work trees: file identities are git's blob ids,
//! files git vouches for are not read, a branch switch parses only what
//! differs (and, with the parse cache, parses nothing it has seen), and a
//! second worktree starts from the first one's index. Each run must still
//! equal a rebuild, row for row.

use std::path::Path;

use evident_index::{index_repo, IndexOptions, Summary};
use evident_testkit::git::commit_all;
use rusqlite::Connection;

use crate::common;
use common::{assert_equals_rebuild, fixture_repo, git};

fn index(root: &Path) -> Summary {
    index_repo(root, &IndexOptions::default()).unwrap()
}

fn write(root: &Path, rel: &str, text: &str) {
    std::fs::write(root.join(rel), text).unwrap();
}

/// `(path, hash)` of every indexed file, sorted.
fn stored_hashes(root: &Path) -> Vec<(String, String)> {
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT path, hash FROM files ORDER BY path")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows
}

/// Sets every indexed file's mtime to `at`, content unchanged.
fn touch_all(root: &Path, at: std::time::SystemTime) {
    for (path, _) in stored_hashes(root) {
        let file = std::fs::File::options()
            .write(true)
            .open(root.join(path))
            .unwrap();
        file.set_modified(at).unwrap();
    }
}

/// The fixture committed on `main`, and a branch `other` that modifies one
/// file, adds one and deletes one. `main` is checked out.
fn two_branches() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, root) = larger_repo();
    commit_all(&root, "main");
    git(&root, &["checkout", "-q", "-b", "other"]);
    write(
        &root,
        "pkg/mod.py",
        "def compute(value):\n    return value * 3\n",
    );
    write(
        &root,
        "app/extra.py",
        "from pkg.mod import compute\n\n\ndef extra():\n    return compute(1)\n",
    );
    std::fs::remove_file(root.join("app/helpers.py")).unwrap();
    commit_all(&root, "other");
    git(&root, &["checkout", "-q", "main"]);
    (tmp, root)
}

/// The fixture and 40 more modules: more files than an edit moves, so that
/// touching them all asks git (`ASK_GIT_PAST`).
fn larger_repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, root) = fixture_repo();
    std::fs::create_dir(root.join("many")).unwrap();
    for i in 0..40 {
        write(
            &root,
            &format!("many/m{i}.py"),
            &format!("def f{i}():\n    return {i}\n"),
        );
    }
    (tmp, root)
}

#[test]
fn identities_are_gits_blob_ids_and_vouched_files_are_not_read() {
    let (_tmp, root) = larger_repo();
    commit_all(&root, "fixture");
    let first = index(&root);
    assert_eq!(first.read, first.files, "a cold index reads every file");

    // The oracle: git's own ids for the same paths.
    let listed = git(&root, &["ls-files", "-s"]);
    for (path, hash) in stored_hashes(&root) {
        let line = listed
            .lines()
            .find(|l| l.ends_with(&format!("\t{path}")))
            .unwrap_or_else(|| panic!("{path} is not tracked"));
        assert_eq!(line.split(' ').nth(1), Some(hash.as_str()), "{path}");
    }

    // New mtimes, same bytes, git's index refreshed: nothing is read.
    let second = std::time::UNIX_EPOCH
        + std::time::Duration::from_secs(
            (std::time::SystemTime::now() + std::time::Duration::from_secs(5))
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        );
    touch_all(&root, second + std::time::Duration::from_millis(100));
    git(&root, &["update-index", "-q", "--refresh"]);
    let after_refresh = index(&root);
    assert_eq!((after_refresh.read, after_refresh.parsed), (0, 0));

    // New mtimes git does not tell apart (git compares whole seconds): git
    // still vouches for every file.
    touch_all(&root, second + std::time::Duration::from_millis(600));
    let untold = index(&root);
    assert_eq!((untold.read, untold.parsed), (0, 0));

    // New mtimes git has not seen: it names every file, so each is read
    // and hashed again, and none is parsed (its id is the same).
    touch_all(&root, second + std::time::Duration::from_secs(10));
    let moved = index(&root);
    assert_eq!((moved.read, moved.parsed), (moved.files, 0));

    // An edit git has not staged, and an untracked file: read, parsed, and
    // identified as `git hash-object` would.
    write(
        &root,
        "pkg/mod.py",
        "def compute(value):\n    return value\n",
    );
    write(&root, "app/new.py", "def new():\n    return 1\n");
    let edited = index(&root);
    assert_eq!((edited.read, edited.parsed), (2, 2));
    let stored = stored_hashes(&root);
    for rel in ["pkg/mod.py", "app/new.py"] {
        let expected = git(&root, &["hash-object", rel]);
        let found = stored.iter().find(|(p, _)| p == rel).unwrap();
        assert_eq!(found.1, expected.trim(), "{rel}");
    }
    assert_equals_rebuild(&root, "after an unstaged edit and an untracked file");
}

#[test]
fn a_branch_switch_parses_only_the_files_that_differ() {
    let (_tmp, root) = two_branches();
    let first = index(&root);

    git(&root, &["checkout", "-q", "other"]);
    let switched = index(&root);
    assert_eq!(
        (switched.parsed, switched.removed, switched.read),
        (2, 1, 2),
        "modified and added parsed, deleted removed: {switched:?}"
    );
    assert_equals_rebuild(&root, "after switching to `other`");

    git(&root, &["checkout", "-q", "main"]);
    let back = index(&root);
    assert_eq!(
        (back.parsed, back.removed, back.read),
        (2, 1, 2),
        "{back:?}"
    );
    assert_eq!(back.files, first.files);
    assert_equals_rebuild(&root, "after switching back to `main`");
}

/// With the parse cache, switching back to a branch parses nothing: the
/// files that differ come from the cache, and the index still equals a
/// rebuild. A switch to bytes never seen parses them.
#[test]
fn a_switch_back_takes_what_differs_from_the_parse_cache() {
    let (_tmp, root) = two_branches();
    let cache = tempfile::tempdir().unwrap();
    let options = IndexOptions {
        parse_cache: Some(evident_index::ParseCacheSettings {
            dir: cache.path().to_path_buf(),
            max_bytes: 1 << 30,
        }),
        ..IndexOptions::default()
    };
    index_repo(&root, &options).unwrap();
    git(&root, &["checkout", "-q", "other"]);
    let switched = index_repo(&root, &options).unwrap();
    assert_eq!(
        (switched.parsed, switched.from_cache),
        (2, 0),
        "{switched:?}"
    );
    git(&root, &["checkout", "-q", "main"]);
    let back = index_repo(&root, &options).unwrap();
    assert_eq!((back.parsed, back.from_cache), (2, 2), "{back:?}");
    assert_equals_rebuild(&root, "after switching back through the parse cache");
    git(&root, &["checkout", "-q", "other"]);
    let again = index_repo(&root, &options).unwrap();
    assert_eq!((again.parsed, again.from_cache), (2, 2), "{again:?}");
    assert_equals_rebuild(&root, "after switching again through the parse cache");
}

#[test]
fn a_second_worktree_starts_from_the_first_ones_index() {
    let (tmp, root) = two_branches();
    let first = index(&root);
    let main_rows = common::dump(&root);

    let tree = tmp.path().join("wt");
    git(
        &root,
        &["worktree", "add", "-q", tree.to_str().unwrap(), "other"],
    );
    let second = index(&tree);
    let seed = second
        .seeded_from
        .as_ref()
        .expect("seeded from the first worktree");
    assert_eq!(
        seed.canonicalize().unwrap(),
        root.join(".evident/index.db").canonicalize().unwrap()
    );
    assert!(!second.created);
    assert_eq!(
        (second.parsed, second.removed, second.read),
        (2, 1, 2),
        "only what differs from the first worktree is read: {second:?}"
    );
    assert_equals_rebuild(&tree, "a seeded worktree");
    assert_eq!(
        common::dump(&root),
        main_rows,
        "the first index is untouched"
    );
    assert_eq!(index(&root).files, first.files);
}

#[test]
fn a_sibling_index_of_another_schema_is_not_a_seed() {
    let (tmp, root) = two_branches();
    index(&root);
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    conn.execute(
        "UPDATE meta SET value = '1' WHERE key = 'schema_version'",
        [],
    )
    .unwrap();
    drop(conn);
    let tree = tmp.path().join("wt");
    git(
        &root,
        &["worktree", "add", "-q", tree.to_str().unwrap(), "other"],
    );
    let second = index(&tree);
    assert_eq!(second.seeded_from, None);
    assert!(second.created);
    assert_eq!(second.parsed, second.files);
    assert!(!tree.join(".evident/seed.partial").exists());
}
