//! Filters sources and vectors.

use super::*;

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
fn a_report_that_mentions_a_test_still_ranks_the_source_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "tests/test_auth.py",
        "def test_renew_after_expiry():\n    token = issue()\n    expire(token)\n    \
         # a stale token after expiry must be refreshed by the issuer\n    \
         assert renew(token) != token\n",
    );
    write(
        root,
        "auth.py",
        "def renew(token):\n    # refresh an expired token from the issuer\n    return cached(token)\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    // One word that names tests, among the many of a bug report.
    let report = "Renewing an expired token returns the stale token instead of a new one. \
        The renew step reads the cached token and never asks the issuer again, so every \
        request after expiry fails as unauthorized. Our integration test shows it: the \
        client keeps sending the stale token until it restarts.";
    let first = |signal: &str| {
        ranked_with(&index, report, SearchGroup::File, signal)[0]
            .path
            .clone()
    };
    assert_eq!(first("tests=0"), "tests/test_auth.py", "the words alone");
    assert_eq!(
        first("tests=0.8"),
        "auth.py",
        "the report is about behaviour"
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
