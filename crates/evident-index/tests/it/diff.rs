//! Git change analysis against a real git repository.

use std::path::Path;

use evident_index::{index_repo, Change, DiffRequest, Index, IndexOptions};

use crate::common;
use common::git;

use evident_testkit::fs::write_in as write;

fn committed_repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, root) = common::fixture_repo();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    (tmp, root)
}

fn changes(report: &evident_index::DiffReport) -> Vec<(Change, String)> {
    report
        .touched
        .iter()
        .map(|t| (t.change, t.evidence.qualified_name.clone().unwrap()))
        .collect()
}

fn diff(root: &Path, request: DiffRequest) -> evident_index::DiffReport {
    index_repo(root, &IndexOptions::default()).unwrap();
    Index::open(root)
        .unwrap()
        .diff(&DiffRequest {
            impact_depth: 3,
            ..request
        })
        .unwrap()
}

#[test]
fn working_tree_changes_touch_definitions_with_their_impact() {
    let (_tmp, root) = committed_repo();
    // modify a function others call, add one, delete a file, rename one, add a binary and an untracked file
    write(&root, "src/rag_common.py", "PREFIX = \"rag\"\n\n\ndef get_collection_name(kind):\n    \"\"\"The collection for a kind of document.\"\"\"\n    return f\"{PREFIX}-{kind}\"\n\n\ndef new_helper():\n    return 1\n");
    std::fs::remove_file(root.join("app/helpers.py")).unwrap();
    git(&root, &["mv", "web/api.js", "web/remote.js"]);
    std::fs::write(root.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 1, 2]).unwrap();
    git(&root, &["add", "logo.png"]);
    write(&root, "tools/extra.py", "def extra():\n    pass\n");

    let report = diff(&root, DiffRequest::default());
    assert_eq!(report.compared, "working tree vs HEAD");
    let touched = changes(&report);
    assert!(
        touched.contains(&(
            Change::Modified,
            "src.rag_common.get_collection_name".into()
        )),
        "{touched:?}"
    );
    assert!(
        touched.contains(&(Change::Added, "src.rag_common.new_helper".into())),
        "{touched:?}"
    );
    assert!(
        touched.contains(&(Change::Deleted, "app.helpers.clean".into())),
        "{touched:?}"
    );
    assert!(
        touched.contains(&(Change::Added, "tools.extra.extra".into())),
        "untracked: {touched:?}"
    );
    assert!(
        report.binary.contains(&"logo.png".to_string()),
        "{:?}",
        report.binary
    );
    // The rename alone touches no definition.
    assert!(
        !touched.iter().any(|(_, q)| q.contains("fetchTitle")),
        "{touched:?}"
    );
    let modified = report
        .touched
        .iter()
        .find(|t| t.evidence.name == "get_collection_name")
        .unwrap();
    assert_eq!(modified.direct_callers, 1, "app.main.main calls it");
    assert_eq!(modified.evidence.start_line, 4);
    // What may break is listed, with the chain back to the touched definition.
    let may_break = &modified.affected_definitions[0];
    assert_eq!(may_break.qualified_name.as_deref(), Some("app.main.main"));
    let chain = may_break.via.as_ref().unwrap();
    assert_eq!(chain.first().map(String::as_str), Some("app.main.main"));
    assert!(
        chain.last().unwrap().ends_with("get_collection_name"),
        "{chain:?}"
    );
    let hunk = report
        .hunks
        .iter()
        .find(|h| h.path == "src/rag_common.py")
        .unwrap();
    assert!(
        hunk.snippet.contains("+    return f\"{PREFIX}-{kind}\""),
        "{}",
        hunk.snippet
    );
    assert!(report.risk().starts_with("risk: "), "{}", report.risk());
}

#[test]
fn staged_and_base_modes() {
    let (_tmp, root) = committed_repo();
    write(
        &root,
        "app/helpers.py",
        "def clean(text):\n    return text.strip().lower()\n",
    );
    git(&root, &["add", "app/helpers.py"]);
    write(
        &root,
        "pkg/mod.py",
        "def compute(value):\n    return value\n",
    );
    let staged = diff(
        &root,
        DiffRequest {
            staged: true,
            ..Default::default()
        },
    );
    assert_eq!(
        changes(&staged),
        vec![(Change::Modified, "app.helpers.clean".to_string())]
    );

    git(&root, &["commit", "-q", "-am", "second"]);
    let since = diff(
        &root,
        DiffRequest {
            base: Some("HEAD~1".into()),
            ..Default::default()
        },
    );
    assert_eq!(since.compared, "HEAD~1..HEAD");
    let touched = changes(&since);
    assert!(
        touched.contains(&(Change::Modified, "app.helpers.clean".into())),
        "{touched:?}"
    );
    assert!(
        touched.contains(&(Change::Deleted, "pkg.mod.Engine".into()))
            || touched.contains(&(Change::Deleted, "pkg.mod.Engine.compute".into())),
        "{touched:?}"
    );

    let only = diff(
        &root,
        DiffRequest {
            base: Some("HEAD~1".into()),
            paths: vec!["app".into()],
            ..Default::default()
        },
    );
    assert_eq!(only.files, 1);

    // A clean tree: nothing changed.
    assert_eq!(diff(&root, DiffRequest::default()).files, 0);
}

#[test]
fn bad_revisions_no_commits_detached_head_and_no_git() {
    let (_tmp, root) = committed_repo();
    let index = || {
        index_repo(&root, &IndexOptions::default()).unwrap();
        Index::open(&root).unwrap()
    };
    let err = |request: DiffRequest| index().diff(&request).unwrap_err().to_string();
    assert!(err(DiffRequest {
        base: Some("--output=/tmp/pwned".into()),
        ..Default::default()
    })
    .contains("not a revision"));
    assert!(err(DiffRequest {
        base: Some("nope".into()),
        ..Default::default()
    })
    .contains("unknown revision"));
    assert!(err(DiffRequest {
        base: Some("HEAD".into()),
        staged: true,
        ..Default::default()
    })
    .contains("cannot be combined"));
    assert!(!Path::new("/tmp/pwned").exists());

    // Detached HEAD.
    let head = git(&root, &["rev-parse", "HEAD"]);
    git(&root, &["checkout", "-q", "--detach", head.trim()]);
    write(
        &root,
        "app/helpers.py",
        "def clean(text):\n    return text\n",
    );
    assert_eq!(
        changes(&diff(&root, DiffRequest::default())),
        vec![(Change::Modified, "app.helpers.clean".to_string())]
    );

    // No commits yet: everything tracked is an addition.
    let fresh = tempfile::tempdir().unwrap();
    write(fresh.path(), "a.py", "def first():\n    pass\n");
    git(fresh.path(), &["init", "-q"]);
    git(fresh.path(), &["add", "a.py"]);
    let report = diff(fresh.path(), DiffRequest::default());
    assert_eq!(
        changes(&report),
        vec![(Change::Added, "a.first".to_string())]
    );
    let err = Index::open(fresh.path())
        .unwrap()
        .diff(&DiffRequest {
            base: Some("HEAD".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert!(
        err.to_string().contains("unknown revision") || err.to_string().contains("no commits"),
        "{err}"
    );

    // Not a git repository at all.
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "a.py", "x = 1\n");
    index_repo(plain.path(), &IndexOptions::default()).unwrap();
    let err = Index::open(plain.path())
        .unwrap()
        .diff(&DiffRequest::default())
        .unwrap_err();
    assert!(
        err.to_string().contains("not inside a git repository"),
        "{err}"
    );
}
