//! Search's history signal: the files that past commits with messages like
//! the query changed rank above files the words alone rank alike; the
//! history follows HEAD (a new commit is read by the next run, which
//! equals a rebuild), holds only what changed under the indexed root, and
//! a root outside git has none. The recency prior: among the first page,
//! the file recent commits changed most ranks first.

use std::path::Path;

use evident_index::{index_repo, Index, IndexOptions, SearchGroup, SearchQuery, Signals};
use evident_testkit::fs::write_in as write;
use evident_testkit::git::{commit_all, git};

use crate::common::{assert_equals_rebuild, chunk_query};

/// The files found for `query`, with their reasons, under `signal` (`NAME=WEIGHT`).
fn files(root: &Path, query: &str, signal: &str) -> Vec<(String, String)> {
    let mut signals = Signals::for_group(SearchGroup::File);
    signals.set(signal).unwrap();
    let q = SearchQuery {
        group: SearchGroup::File,
        limit: 10,
        explain: true,
        signals: Some(signals),
        ..chunk_query(query)
    };
    let found = Index::open(root).unwrap().search(&q).unwrap();
    found
        .into_iter()
        .map(|e| (e.path, e.reason.unwrap_or_default()))
        .collect()
}

/// Two modules the query's words meet alike; the history says which one
/// the commits about narrow terminals changed.
fn two_alike(root: &Path) {
    let module = |name: &str| {
        format!(
            "def show_{name}(text):\n    \"\"\"Render the output text.\"\"\"\n    return text\n"
        )
    };
    write(root, "app/alpha.py", &module("alpha"));
    write(root, "app/beta.py", &module("beta"));
    commit_all(root, "Start");
    write(root, "app/beta.py", &(module("beta") + "\nWIDTH = 80\n"));
    commit_all(root, "Wrap lines on a narrow terminal instead of crashing");
    write(
        root,
        "app/alpha.py",
        &(module("alpha") + "\nCOLOUR = True\n"),
    );
    commit_all(root, "Add a colour option");
}

#[test]
fn a_file_past_commits_like_the_query_changed_ranks_first() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    two_alike(root);
    index_repo(root, &IndexOptions::default()).unwrap();
    let query = "render output crashes on a narrow terminal";
    let off = files(root, query, "history=0");
    assert_eq!(off.len(), 2, "{off:?}");
    assert!(off.iter().all(|(_, why)| !why.contains("past commits")));
    let on = files(root, query, "history=1");
    assert_eq!(on[0].0, "app/beta.py", "{on:?}");
    assert!(
        on[0]
            .1
            .contains("\"Wrap lines on a narrow terminal instead of crashing\""),
        "the reason names the commit: {}",
        on[0].1
    );
    assert!(
        !on[1].1.contains("past commits"),
        "no commit about it changed alpha: {}",
        on[1].1
    );
    // The words alone put them the other way round, or the test shows nothing.
    let alpha_first = files(root, "render output colour", "history=0");
    assert_eq!(alpha_first[0].0, "app/alpha.py", "{alpha_first:?}");
}

#[test]
fn among_the_first_page_the_file_recent_commits_changed_ranks_first() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let module = |name: &str, doc: &str| {
        format!("def show_{name}(text):\n    \"\"\"{doc}\"\"\"\n    return text\n")
    };
    write(
        root,
        "app/alpha.py",
        &module("alpha", "Render the output text, all the output text."),
    );
    write(
        root,
        "app/beta.py",
        &module("beta", "Render the output text."),
    );
    commit_all(root, "Start");
    // Commits whose messages share no word with the query.
    let mut beta = module("beta", "Render the output text.");
    for step in 0..3 {
        beta.push_str(&format!("\nLIMIT_{step} = {step}\n"));
        write(root, "app/beta.py", &beta);
        commit_all(root, &format!("Tune limit {step}"));
    }
    index_repo(root, &IndexOptions::default()).unwrap();
    let query = "render output text";
    // The words alone put alpha first, or the test shows nothing.
    let words = files(root, query, "recency=0");
    assert_eq!(words[0].0, "app/alpha.py", "{words:?}");
    assert!(words.iter().all(|(_, why)| !why.contains("recent commits")));
    let prior = files(root, query, "recency=1");
    assert_eq!(prior[0].0, "app/beta.py", "{prior:?}");
    assert!(
        prior[0].1.contains("recent commits to its file weigh"),
        "{}",
        prior[0].1
    );
    // The default weighs it too, at a share.
    let default = files(root, query, "history=0.2");
    let beta = default
        .iter()
        .find(|(path, _)| path == "app/beta.py")
        .unwrap();
    assert!(
        beta.1.contains("recent commits to its file weigh"),
        "{default:?}"
    );
}

#[test]
fn the_history_follows_head_and_equals_a_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    two_alike(root);
    index_repo(root, &IndexOptions::default()).unwrap();
    let status = Index::open(root).unwrap().status().unwrap();
    let history = status.history.expect("a git root has a history");
    assert_eq!(history.commits, 3);
    assert_eq!(history.head, git(root, &["rev-parse", "HEAD"]).trim());

    write(root, "app/gamma.py", "def gamma():\n    return 3\n");
    commit_all(root, "Add gamma for the frobnicator");
    index_repo(root, &IndexOptions::default()).unwrap();
    let status = Index::open(root).unwrap().status().unwrap();
    assert_eq!(status.history.unwrap().commits, 4, "the new commit is read");
    let found = files(root, "frobnicator gamma", "history=1");
    assert!(
        found[0].1.contains("Add gamma for the frobnicator"),
        "{found:?}"
    );
    assert_equals_rebuild(root, "after a commit");

    // Back to an older commit: its history holds nothing newer.
    git(root, &["checkout", "-q", "HEAD~3"]);
    index_repo(root, &IndexOptions::default()).unwrap();
    let status = Index::open(root).unwrap().status().unwrap();
    assert_eq!(status.history.unwrap().commits, 1);
    assert_equals_rebuild(root, "after a checkout of an older commit");
}

#[test]
fn a_subdirectory_root_keeps_its_own_paths_and_no_git_means_no_history() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    write(
        top,
        "svc/app/pager.py",
        "def page(text):\n    return text\n",
    );
    write(top, "other/pager.py", "def page(text):\n    return text\n");
    commit_all(top, "Start");
    write(
        top,
        "other/pager.py",
        "def page(text):\n    return text[:10]\n",
    );
    commit_all(top, "Cut the pager short elsewhere");
    write(
        top,
        "svc/app/pager.py",
        "def page(text):\n    return text[:20]\n",
    );
    commit_all(top, "Cut the pager short here");
    let root = top.join("svc");
    index_repo(&root, &IndexOptions::default()).unwrap();
    let status = Index::open(&root).unwrap().status().unwrap();
    assert_eq!(
        status.history.unwrap().commits,
        2,
        "only the commits that changed something under the root"
    );
    let found = files(&root, "pager short", "history=1");
    assert_eq!(found[0].0, "app/pager.py", "{found:?}");
    assert!(found[0].1.contains("Cut the pager short here"), "{found:?}");

    let plain = tempfile::tempdir().unwrap();
    write(
        plain.path(),
        "pager.py",
        "def page(text):\n    return text\n",
    );
    index_repo(plain.path(), &IndexOptions::default()).unwrap();
    let status = Index::open(plain.path()).unwrap().status().unwrap();
    assert_eq!(status.history, None);
}
