//! Full-text search: code-aware terms, ranking signals, FTS5 escaping,
//! filters, and chunks kept in step with the files.

use crate::common;

use std::path::Path;

use common::assert_equals_rebuild;
use evident_index::{
    index_repo, Error, Evidence, Index, IndexOptions, Kind, SearchGroup, SearchQuery, Signals,
};

use evident_testkit::fs::write_in as write;

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "rag/common.py",
        "def get_collection_name(kind):\n    \"\"\"The vector-store collection for a kind of document.\"\"\"\n    return f\"{kind}_docs\"\n\n\ndef unrelated():\n    return 42\n",
    );
    write(
        root,
        "web/store.js",
        "export function getCollectionName(kind) {\n  return kind + '_docs';\n}\n",
    );
    write(root, "svc/names.go", "package svc\n\n// GetCollectionName names the collection.\nfunc GetCollectionName(kind string) string {\n\treturn kind + \"_docs\"\n}\n");
    write(
        root,
        "svc/other.go",
        "package svc\n\nfunc Render(page string) string {\n\treturn page\n}\n",
    );
    write(root, "app/main.py", "import sys\n\nCONFIG = {'retries': 3}\n\nif __name__ == '__main__':\n    print('collection', sys.argv)\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    dir
}

fn search(root: &Path, text: &str) -> Vec<(String, String)> {
    let index = Index::open(root).unwrap();
    index
        .search(&crate::common::chunk_query(text))
        .unwrap()
        .into_iter()
        .map(|e| (e.path, e.name))
        .collect()
}

#[test]
fn a_language_filter_keeps_that_languages_files_only() {
    let dir = repo();
    let index = Index::open(dir.path()).unwrap();
    let go = SearchQuery {
        language: Some("go".into()),
        ..SearchQuery::new("collection name")
    };
    let paths: Vec<String> = index
        .search(&go)
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    // By the extension's language, not by the words: svc/other.go has none of them.
    assert_eq!(paths, ["svc/names.go"], "{paths:?}");
    let unknown = SearchQuery {
        language: Some("klingon".into()),
        ..SearchQuery::new("collection name")
    };
    assert!(matches!(
        index.search(&unknown),
        Err(Error::InvalidArgument(m)) if m.contains("unknown language \"klingon\"") && m.contains("python")
    ));
}

#[test]
fn every_spelling_of_an_identifier_matches_words() {
    let dir = repo();
    let found = search(dir.path(), "collection name");
    for (path, name) in [
        ("rag/common.py", "get_collection_name"),
        ("web/store.js", "getCollectionName"),
        ("svc/names.go", "GetCollectionName"),
    ] {
        assert!(
            found.contains(&(path.to_string(), name.to_string())),
            "{name} missing: {found:?}"
        );
    }
    assert!(
        !found.iter().any(|(_, n)| n == "unrelated" || n == "Render"),
        "{found:?}"
    );
}

#[test]
fn the_exact_identifier_ranks_first() {
    let dir = repo();
    for (query, first) in [
        ("get_collection_name", "rag/common.py"),
        ("getCollectionName", "web/store.js"),
        ("GetCollectionName", "svc/names.go"),
    ] {
        let found = search(dir.path(), query);
        assert_eq!(found[0].0, first, "{query}: {found:?}");
        assert!(found.len() >= 3, "other spellings follow: {found:?}");
    }
    let index = Index::open(dir.path()).unwrap();
    let top = &index
        .search(&crate::common::chunk_query("get_collection_name"))
        .unwrap()[0];
    assert!(top.score.unwrap() > 0.0);
    assert!(top.reason.as_deref().unwrap().starts_with("exact name"));
    assert!(
        top.snippet.contains("def get_collection_name(kind):"),
        "Evidence carries the real text"
    );
    assert_eq!((top.start_line, top.end_line), (1, 3));
}

#[test]
fn docs_and_code_between_definitions_are_searchable() {
    let dir = repo();
    assert_eq!(
        search(dir.path(), "vector store")[0].1,
        "get_collection_name",
        "docstrings count"
    );
    let found = search(dir.path(), "argv");
    assert_eq!(
        found[0],
        ("app/main.py".to_string(), "main.py".to_string()),
        "top-level code is a chunk"
    );
    assert_eq!(
        search(dir.path(), "retries")[0].1,
        "CONFIG",
        "a constant is a definition chunk"
    );
}

#[test]
fn fts_syntax_never_reaches_the_user() {
    let dir = repo();
    let index = Index::open(dir.path()).unwrap();
    for query in [
        "\"",
        "*",
        "NEAR(",
        "AND",
        "OR NOT",
        "name*",
        "col\"lection",
        "a:b",
        "(",
        "^x",
        "-",
        "{kind}",
    ] {
        match index.search(&crate::common::chunk_query(query)) {
            Ok(_) => {}
            Err(Error::InvalidArgument(message)) => {
                assert!(message.contains("no words"), "{query}: {message}")
            }
            Err(other) => panic!("{query:?} gave {other}"),
        }
    }
    assert!(
        matches!(index.search(&crate::common::chunk_query("  ")), Err(Error::InvalidArgument(m)) if m.contains("empty"))
    );
    let long = "x".repeat(evident_index::MAX_QUERY_CHARS + 1);
    assert!(
        matches!(index.search(&crate::common::chunk_query(long)), Err(Error::InvalidArgument(m)) if m.contains("limit"))
    );
}

/// A commit message or an issue's text is a query as it is: a long one is
/// accepted, and its words rank the chunk that holds them.
#[test]
fn a_commit_message_is_a_query() {
    let dir = repo();
    let message = format!(
        "Fix the collection name for a kind of document\n\n{}The vector-store collection was wrong for some kinds.",
        "We had several reports from users that the wrong thing happened in production. ".repeat(10)
    );
    assert!(message.chars().count() > 500);
    let found = search(dir.path(), &message);
    assert_eq!(
        found.first().map(|(path, _)| path.as_str()),
        Some("rag/common.py"),
        "{found:?}"
    );
}

/// `--group file`: one result per file, its best chunk shown, ranked by the
/// sum of its chunks' scores, so a file that matches in several places beats
/// one lucky chunk; `--group definition` joins a long definition's windows.
#[test]
fn results_grouped_by_file_and_by_definition() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // `one.py` has the single best chunk; `many.py` matches in three.
    write(
        root,
        "one.py",
        "def ledger_balance_total():\n    return 1\n",
    );
    write(
        root,
        "many.py",
        "def post():\n    return 'ledger balance'\n\n\ndef close():\n    return 'balance total'\n\n\ndef sum_up():\n    return 'ledger total'\n",
    );
    for i in 0..5 {
        write(
            root,
            &format!("other{i}.py"),
            "def unrelated():\n    return 'nothing here'\n",
        );
    }
    let long_body: String = (0..200)
        .map(|i| format!("    audit_step_{i} = 'ledger'\n"))
        .collect();
    write(root, "long.py", &format!("def audit():\n{long_body}"));
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let run = |group| {
        let q = SearchQuery {
            group,
            limit: 20,
            ..crate::common::chunk_query("ledger balance total")
        };
        index.search(&q).unwrap()
    };
    let chunks = run(SearchGroup::Chunk);
    assert_eq!(chunks[0].path, "one.py", "{chunks:?}");
    // Summed (length 0), the file matching in three places comes first.
    let summed = ranked_with(
        &index,
        "ledger balance total",
        SearchGroup::File,
        "length=0",
    );
    let paths: Vec<&str> = summed.iter().map(|e| e.path.as_str()).collect();
    let mut unique = paths.clone();
    unique.dedup();
    assert_eq!(paths.len(), unique.len(), "one result per file: {paths:?}");
    assert_eq!(paths[0], "many.py", "{summed:?}");
    let many = &summed[0];
    assert!(
        many.reason.as_deref().unwrap_or("").contains("3 chunk(s)"),
        "{many:?}"
    );
    // By default a group's sum is divided by √chunks: the short file that
    // matches every word in one place comes back first.
    let files = run(SearchGroup::File);
    assert_eq!(files[0].path, "one.py", "{files:?}");
    let normalised = files.iter().find(|e| e.path == "many.py").unwrap();
    let expected = many.score.unwrap() / 3f64.sqrt();
    assert!(
        (normalised.score.unwrap() - expected).abs() < 1e-9,
        "{normalised:?} against {expected}"
    );
    // The long definition's windows are one result when grouped by definition.
    let audit_windows = run(SearchGroup::Chunk)
        .iter()
        .filter(|e| e.name == "audit")
        .count();
    assert!(audit_windows > 1, "the body is split into windows");
    let definitions = run(SearchGroup::Definition);
    assert_eq!(
        definitions.iter().filter(|e| e.name == "audit").count(),
        1,
        "{definitions:?}"
    );
}

#[test]
fn grouped_by_definition_only_definitions_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "ledger.py",
        "LEDGER_NAME = 'ledger balance'\nprint('ledger balance', LEDGER_NAME)\n\n\ndef close_ledger():\n    \"\"\"Close the ledger balance.\"\"\"\n    return 1\n",
    );
    write(
        root,
        "NOTES.md",
        "# Ledger balance\n\nThe ledger balance is closed daily.\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let run = |group| {
        let q = SearchQuery {
            group,
            limit: 20,
            ..crate::common::chunk_query("ledger balance")
        };
        index.search(&q).unwrap()
    };
    let kinds = |results: &[Evidence]| -> Vec<Kind> { results.iter().map(|e| e.kind).collect() };
    let chunks = kinds(&run(SearchGroup::Chunk));
    assert!(
        chunks.contains(&Kind::Doc) && chunks.contains(&Kind::Chunk),
        "{chunks:?}"
    );
    let definitions = kinds(&run(SearchGroup::Definition));
    assert!(!definitions.is_empty(), "the function is found");
    assert!(
        definitions
            .iter()
            .all(|k| *k != Kind::Doc && *k != Kind::Chunk),
        "{definitions:?}"
    );
}

/// `query` ranked by `group`, with signals set (`NAME=WEIGHT`, space-separated).
fn ranked_with(index: &Index, query: &str, group: SearchGroup, signal: &str) -> Vec<Evidence> {
    let mut signals = Signals::for_group(group);
    for assignment in signal.split_whitespace() {
        signals.set(assignment).unwrap();
    }
    let q = SearchQuery {
        group,
        signals: Some(signals),
        ..crate::common::chunk_query(query)
    };
    index.search(&q).unwrap()
}

fn names(found: Vec<Evidence>) -> Vec<String> {
    found
        .into_iter()
        .map(|e| e.qualified_name.unwrap_or_default())
        .collect()
}

#[test]
fn results_borrow_from_what_calls_contains_or_imports_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Calls: `near` and `far` match alike, `far` a little better; only `near`
    // is called by the best match, `schedule`.
    write(
        root,
        "jobs.py",
        "def schedule(task):\n    \"Retry with backoff, retry again.\"\n    return near(task)\n\n\ndef near(task):\n    return 'backoff'\n\n\ndef far(task):\n    return 'backoff backoff'\n",
    );
    // Class: the two `drain` methods match alike, `Queue.drain` a little
    // better; only `Pool`'s own text matches too.
    write(
        root,
        "pools.py",
        "class Pool:\n    \"Connections kept for reuse; reuse them.\"\n\n    def drain(self):\n        return 'pooled'\n\n\nclass Queue:\n    def drain(self):\n        return 'pooled pooled'\n",
    );
    // Imports: `lib/fmt.py` and `lib/render.py` alike, `render` a little
    // better; only `fmt` is imported by the best match, `app.py`.
    write(
        root,
        "app.py",
        "from lib.fmt import money\n\n\ndef invoice(total):\n    return money(total) + ' invoice invoice'\n",
    );
    write(
        root,
        "lib/fmt.py",
        "def money(total):\n    return f'{total} invoice'\n",
    );
    write(
        root,
        "lib/render.py",
        "def page(total):\n    return f'{total} invoice invoice'\n",
    );
    write(root, "lib/__init__.py", "");
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let backoff = |weight| {
        names(ranked_with(
            &index,
            "backoff",
            SearchGroup::Definition,
            weight,
        ))
    };
    let (without, with) = (backoff("calls=0"), backoff("calls=1"));
    assert_eq!(
        without[..3],
        ["jobs.schedule", "jobs.far", "jobs.near"],
        "the words alone"
    );
    assert_eq!(
        with[..3],
        ["jobs.schedule", "jobs.near", "jobs.far"],
        "called by a match"
    );
    let drains = |weight| -> Vec<String> {
        names(ranked_with(
            &index,
            "pooled reuse",
            SearchGroup::Definition,
            weight,
        ))
        .into_iter()
        .filter(|n| n.ends_with(".drain"))
        .collect()
    };
    assert_eq!(drains("class=0")[0], "pools.Queue.drain", "the words alone");
    assert_eq!(
        drains("class=1")[0],
        "pools.Pool.drain",
        "in a matching class"
    );
    // Calls link `app.py` to `lib/fmt.py` too: measure imports alone.
    let libs = |weight: &str| -> Vec<Evidence> {
        let signals = format!("calls=0 {weight}");
        ranked_with(&index, "invoice", SearchGroup::File, &signals)
            .into_iter()
            .filter(|e| e.path.starts_with("lib/"))
            .collect()
    };
    assert_eq!(
        libs("imports=0")[0].path,
        "lib/render.py",
        "the words alone"
    );
    let with = libs("imports=1");
    assert_eq!(with[0].path, "lib/fmt.py", "imported by a match");
    let reason = with[0].reason.as_deref().unwrap_or("");
    assert!(reason.contains("from imports"), "{reason}");
    // Files borrow along calls between their definitions too (`invoice`
    // calls `money`).
    let by_calls: Vec<String> =
        ranked_with(&index, "invoice", SearchGroup::File, "imports=0 calls=1")
            .into_iter()
            .map(|e| e.path)
            .filter(|p| p.starts_with("lib/"))
            .collect();
    assert_eq!(by_calls[0], "lib/fmt.py", "called by a match: {by_calls:?}");
}

#[test]
fn documents_and_tests_rank_below_code_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "README.md",
        "# Refresh token\n\nRefresh the token before it expires: refresh token.\n",
    );
    write(
        root,
        "tests/test_auth.py",
        "def test_refresh():\n    assert refresh('token token')\n",
    );
    write(
        root,
        "auth.py",
        "def renew(token):\n    # refresh the token\n    return token\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let first = |query: &str, signal: &str| {
        ranked_with(&index, query, SearchGroup::File, signal)[0]
            .path
            .clone()
    };
    assert_eq!(
        first("refresh token", "docs=0"),
        "README.md",
        "the words alone"
    );
    assert_eq!(first("refresh token", "docs=0.5"), "auth.py");
    assert_eq!(
        first("refresh token docs", "docs=0.5"),
        "README.md",
        "asked for"
    );
    assert_eq!(
        first("refresh token test", "docs=1"),
        "tests/test_auth.py",
        "asked for"
    );
}

#[test]
fn kind_and_path_filters() {
    let dir = repo();
    let index = Index::open(dir.path()).unwrap();
    let mut q = crate::common::chunk_query("collection");
    q.path = Some("svc".into());
    let found = index.search(&q).unwrap();
    assert!(
        !found.is_empty() && found.iter().all(|e| e.path.starts_with("svc/")),
        "{found:?}"
    );
    q.path = Some("**/*.js".into());
    assert!(index
        .search(&q)
        .unwrap()
        .iter()
        .all(|e| e.path == "web/store.js"));
    let mut q = crate::common::chunk_query("collection");
    q.kind = Some(Kind::Chunk);
    let found = index.search(&q).unwrap();
    assert!(found.iter().all(|e| e.kind == Kind::Chunk), "{found:?}");
    assert!(found.iter().any(|e| e.path == "app/main.py"), "{found:?}");
    let mut q = crate::common::chunk_query("collection");
    q.path = Some("[".into());
    assert!(matches!(index.search(&q), Err(Error::InvalidArgument(m)) if m.contains("glob")));
}

#[test]
fn chunks_follow_edits() {
    let dir = repo();
    let root = dir.path();
    write(
        root,
        "rag/common.py",
        "def fetch_bucket_label(kind):\n    return kind\n",
    );
    std::fs::remove_file(root.join("web/store.js")).unwrap();
    write(
        root,
        "web/new.ts",
        "export const bucketLabel = (k: string) => k;\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let found = search(root, "bucket label");
    assert!(found.iter().any(|(p, _)| p == "rag/common.py"), "{found:?}");
    assert!(found.iter().any(|(p, _)| p == "web/new.ts"), "{found:?}");
    let found = search(root, "collection name");
    assert!(
        found
            .iter()
            .all(|(p, _)| p != "rag/common.py" && p != "web/store.js"),
        "old text is gone: {found:?}"
    );
    assert_equals_rebuild(root, "after edits");
}

#[test]
fn long_definitions_are_split_with_overlap_and_keep_their_name() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..200)
        .map(|i| format!("    step_{i} = compute({i})\n"))
        .collect();
    write(
        dir.path(),
        "big.py",
        &format!("def long_pipeline():\n{body}    return needle_marker\n"),
    );
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    let index = Index::open(dir.path()).unwrap();
    let hits = index
        .search(&crate::common::chunk_query("needle marker"))
        .unwrap();
    assert_eq!(hits[0].name, "long_pipeline");
    assert_eq!(hits[0].end_line, 202);
    assert!(
        hits[0].start_line > 1,
        "the window holding the line, not the whole function"
    );
    let all = index
        .search(&SearchQuery {
            limit: 50,
            ..crate::common::chunk_query("long_pipeline")
        })
        .unwrap();
    assert_eq!(
        all.len(),
        3,
        "202 lines in windows of 80 with 10 shared: {all:?}"
    );
}

fn docs_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "README.md", "# Widget\n\nA widget store.\n\n## Install\n\nRun `make install` first.\n\n## Usage\n\nCall install() once.\n");
    write(
        root,
        "docs/guide.rst",
        "Guide\n=====\n\nIntro text.\n\nTuning\n------\n\nSet the flux capacitor.\n",
    );
    write(root, "docs/notes.txt", "plain notes about caching\n");
    write(
        root,
        "docs/faq.md",
        "# FAQ\n## Why\nfirst why\n## How\nhow\n## Why\nsecond why\n",
    );
    write(root, "app.py", "def main():\n    install()\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    dir
}

#[test]
fn sources_list_ids_and_paths_never_content() {
    let dir = docs_repo();
    let index = Index::open(dir.path()).unwrap();
    let all = index.sources("").unwrap();
    let listed: Vec<(&str, &str)> = all
        .iter()
        .map(|d| (d.path.as_str(), d.name.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            ("README.md", "Widget"),
            ("docs/faq.md", "FAQ"),
            ("docs/guide.rst", "Guide"),
            ("docs/notes.txt", "notes.txt")
        ]
    );
    assert!(all
        .iter()
        .all(|d| d.snippet.is_empty() && d.kind == Kind::Doc));
    assert!(all
        .iter()
        .all(|d| d.doc_id.as_deref().unwrap().starts_with("doc-")));
    assert_eq!(
        index.sources("GUIDE").unwrap().len(),
        1,
        "case-insensitive, path or title"
    );
    assert_eq!(index.sources("widget").unwrap()[0].path, "README.md");
    assert!(index.sources(&"x".repeat(80)).unwrap().is_empty());
    assert!(
        matches!(index.sources(&"x".repeat(81)), Err(Error::InvalidArgument(m)) if m.contains("at most 80"))
    );
}

#[test]
fn source_reads_by_id_section_or_lines() {
    let dir = docs_repo();
    let index = Index::open(dir.path()).unwrap();
    let id = index.sources("guide").unwrap()[0].doc_id.clone().unwrap();
    let section = index
        .source(&id, &evident_index::SourcePart::Section("tuning".into()))
        .unwrap();
    assert_eq!(
        (section.path.as_str(), section.start_line, section.end_line),
        ("docs/guide.rst", 6, 9)
    );
    assert!(section.snippet.contains("flux capacitor"));
    assert_eq!(section.doc_id.as_deref(), Some(id.as_str()));
    let lines = index
        .source(&id, &evident_index::SourcePart::Lines(1, 2))
        .unwrap();
    assert_eq!(lines.snippet, "Guide\n=====");
    let start = index
        .source(&id, &evident_index::SourcePart::Start)
        .unwrap();
    assert_eq!((start.start_line, start.end_line), (1, 9));
    match index.source(&id, &evident_index::SourcePart::Section("nope".into())) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("Guide | Tuning"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(index.source("doc-000000000000", &evident_index::SourcePart::Start), Err(Error::InvalidArgument(m)) if m.contains("no document has the ID"))
    );
    assert!(
        index
            .source(&id, &evident_index::SourcePart::Lines(1, 1000))
            .is_err(),
        "the read limit holds"
    );
}

#[test]
fn doc_ids_survive_reindexing_and_edits() {
    let dir = docs_repo();
    let root = dir.path();
    let before = Index::open(root).unwrap().sources("").unwrap();
    write(root, "README.md", "# Widget\n\nRewritten entirely.\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    index_repo(
        root,
        &IndexOptions {
            rebuild: true,
            ..Default::default()
        },
    )
    .unwrap();
    let after = Index::open(root).unwrap().sources("").unwrap();
    let ids = |docs: &[evident_index::Evidence]| {
        docs.iter()
            .map(|d| (d.path.clone(), d.doc_id.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&before), ids(&after));
    assert_equals_rebuild(root, "after a document edit");
}

#[test]
fn headings_are_never_call_targets_but_are_searchable() {
    let dir = docs_repo();
    let index = Index::open(dir.path()).unwrap();
    assert!(
        index
            .symbols("Install", &Default::default())
            .unwrap()
            .is_empty(),
        "sections are not symbols"
    );
    let callees = index.callees("main", None).unwrap();
    assert!(callees.iter().all(|e| e.path != "README.md"), "{callees:?}");
    let hits = index
        .search(&crate::common::chunk_query("flux capacitor"))
        .unwrap();
    assert_eq!(
        (hits[0].path.as_str(), hits[0].kind, hits[0].name.as_str()),
        ("docs/guide.rst", Kind::Doc, "Tuning")
    );
}

/// A real, deterministic embedder for tests: words hashed into 64 buckets
/// (lexical, not semantic, but a genuine vector space the index must handle).
struct BagOfWords {
    calls: std::cell::Cell<usize>,
    texts: std::cell::Cell<usize>,
    fail_after_calls: Option<usize>,
}

impl BagOfWords {
    fn new() -> Self {
        BagOfWords {
            calls: 0.into(),
            texts: 0.into(),
            fail_after_calls: None,
        }
    }
    fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; 64];
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
        {
            let h = word
                .to_lowercase()
                .bytes()
                .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
            v[(h % 64) as usize] += 1.0;
        }
        v
    }
}

impl evident_index::Embedder for BagOfWords {
    fn model(&self) -> &str {
        "bag-of-words-64"
    }
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, evident_index::EmbedderError> {
        if self.fail_after_calls.is_some_and(|n| self.calls.get() >= n) {
            return Err("connection refused".into());
        }
        self.calls.set(self.calls.get() + 1);
        self.texts.set(self.texts.get() + texts.len());
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }
}

fn embed(root: &Path, embedder: &BagOfWords) -> evident_index::Result<evident_index::EmbedSummary> {
    evident_index::embed_chunks(
        root,
        embedder,
        &evident_index::EmbedOptions {
            batch_size: Some(4),
            ..Default::default()
        },
    )
}

#[test]
fn only_chunks_without_a_vector_are_embedded() {
    let dir = repo();
    let root = dir.path();
    let embedder = BagOfWords::new();
    let first = embed(root, &embedder).unwrap();
    assert!(
        first.embedded > 5 && first.with_vectors == first.embedded,
        "{first:?}"
    );
    assert_eq!(
        embed(root, &embedder).unwrap().embedded,
        0,
        "nothing new to embed"
    );
    // One function of rag/common.py changes; the other keeps its text and its vector.
    write(
        root,
        "rag/common.py",
        "def get_collection_name(kind):\n    \"\"\"Renamed storage.\"\"\"\n    return f\"{kind}_store\"\n\n\ndef unrelated():\n    return 42\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    index.check_integrity().unwrap();
    let model = evident_index::Embedder::model(&embedder).to_string();
    // The edited file's chunks are new rows, without vectors until embedded.
    let common_chunks = 2; // its two functions
    assert_eq!(
        index.vector_count(&model).unwrap(),
        first.with_vectors - common_chunks,
        "the scanned blocks dropped the old rows' vectors"
    );
    let before = embedder.texts.get();
    let again = embed(root, &embedder).unwrap();
    assert_eq!(again.embedded, 1, "only the changed definition: {again:?}");
    assert!(
        again.reused >= 1,
        "the unchanged one found its vector by hash: {again:?}"
    );
    assert_eq!(embedder.texts.get() - before, 1);
    assert_eq!(again.with_vectors, first.with_vectors);
    std::fs::remove_file(root.join("web/store.js")).unwrap();
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    index.check_integrity().unwrap();
    assert_eq!(index.vector_count(&model).unwrap(), first.with_vectors - 1);
}

#[test]
fn an_embedder_that_fails_midway_keeps_what_was_done_and_resumes() {
    let dir = repo();
    let root = dir.path();
    let failing = BagOfWords {
        fail_after_calls: Some(1),
        ..BagOfWords::new()
    };
    match embed(root, &failing) {
        Err(Error::Embedding { embedded, message }) => {
            assert_eq!(embedded, 4, "the first batch of 4 was committed");
            assert!(message.contains("connection refused"));
        }
        other => panic!("{other:?}"),
    }
    let index = Index::open(root).unwrap();
    assert_eq!(index.vector_count("bag-of-words-64").unwrap(), 4);
    let rest = embed(root, &BagOfWords::new()).unwrap();
    assert_eq!(rest.with_vectors, 4 + rest.embedded);

    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let options = evident_index::EmbedOptions {
        cancel: Some(cancel),
        ..Default::default()
    };
    write(root, "extra.py", "def more():\n    pass\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(matches!(
        evident_index::embed_chunks(root, &BagOfWords::new(), &options),
        Err(Error::Interrupted)
    ));
}

#[test]
fn vector_and_hybrid_ranking_fuse_by_scores_or_reciprocal_rank() {
    let dir = repo();
    let root = dir.path();
    embed(root, &BagOfWords::new()).unwrap();
    let index = Index::open(root).unwrap();
    let query = "collection docs kind";
    let vector = evident_index::QueryVector {
        model: "bag-of-words-64".into(),
        values: BagOfWords::vector(query),
    };
    let mut q = crate::common::chunk_query(query);
    q.mode = evident_index::SearchMode::Vector;
    q.vector = Some(vector.clone());
    let by_vector = index.search(&q).unwrap();
    assert!(
        by_vector[0].name.to_lowercase().contains("collection"),
        "{by_vector:?}"
    );
    assert!(
        by_vector[0]
            .reason
            .as_deref()
            .unwrap()
            .starts_with("vector #1"),
        "{:?}",
        by_vector[0].reason
    );
    let cosine = by_vector[0].score.unwrap();
    assert!(cosine > 0.0 && cosine <= 1.0 + 1e-6);

    q.mode = evident_index::SearchMode::Hybrid;
    // By normalised scores (the default): BM25 over the best BM25 (so the
    // first of that list has 1) plus the vector share (1 for chunks) × the
    // min-max normalised cosine (0 to 1).
    let by_scores = index.search(&q).unwrap();
    for ev in &by_scores {
        let reason = ev.reason.as_deref().unwrap();
        assert!(reason.contains("fused"), "{reason}");
        let score = ev.score.unwrap();
        assert!((0.0..=2.0 + 1e-9).contains(&score), "{score} {reason}");
        if reason.contains("bm25 #1 ") {
            assert!(score >= 1.0 - 1e-9, "{score} {reason}");
        }
    }
    // By reciprocal ranks (`fusion=0`).
    let mut signals = Signals::for_group(SearchGroup::Chunk);
    signals.set("fusion=0").unwrap();
    q.signals = Some(signals);
    let fused = index.search(&q).unwrap();
    let top = &fused[0];
    let reason = top.reason.as_deref().unwrap();
    assert!(
        reason.contains("bm25 #") && reason.contains("vector #") && reason.contains("rrf"),
        "{reason}"
    );
    // A result's fused score is the sum of 1/(60 + rank) over the lists it is in.
    let rank = |tag: &str| -> Option<f64> {
        reason
            .split("; ")
            .find(|p| p.starts_with(tag))
            .and_then(|p| p[tag.len()..].split(' ').next()?.parse().ok())
    };
    let expected: f64 = [rank("bm25 #"), rank("vector #")]
        .into_iter()
        .flatten()
        .map(|r| 1.0 / (60.0 + r))
        .sum();
    assert!(
        (top.score.unwrap() - expected).abs() < 1e-9,
        "{} vs {expected}",
        top.score.unwrap()
    );
    assert!(
        fused.windows(2).all(|w| w[0].score >= w[1].score),
        "sorted by fused score"
    );

    // Without the query's embedding, vector ranking is refused, not faked.
    let mut q = crate::common::chunk_query(query);
    q.mode = evident_index::SearchMode::Hybrid;
    assert!(matches!(index.search(&q), Err(Error::InvalidArgument(m)) if m.contains("embedding")));
    // A vector of the wrong size is a clear error.
    q.vector = Some(evident_index::QueryVector {
        model: "bag-of-words-64".into(),
        values: vec![1.0; 3],
    });
    assert!(matches!(index.search(&q), Err(Error::InvalidArgument(m)) if m.contains("dimensions")));
}
