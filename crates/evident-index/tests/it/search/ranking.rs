//! Ranking.

use super::*;

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

/// A report's words meet the code's in another inflection: the full-text
/// tables hold stems, and a query's words are stemmed the same way.
#[test]
fn a_word_meets_the_code_in_another_inflection() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "out/printer.py",
        "def write_colored_line(line, color):\n    return color + line\n",
    );
    write(root, "out/other.py", "def unrelated():\n    return 42\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    for query in ["coloring lines", "the lines were colored", "line colors"] {
        let found = search(root, query);
        assert_eq!(
            found.first().map(|(_, name)| name.as_str()),
            Some("write_colored_line"),
            "{query}: {found:?}"
        );
    }
}

/// Two words a report writes apart meet the one word code writes them as:
/// "env vars" finds `envvar`, though a decoy holds one of the words.
#[test]
fn words_written_apart_meet_the_word_code_joins() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "opts.py",
        "def resolve_envvar(option):\n    return option.envvar\n\n\n\
         def settings(env, defaults):\n    return env, defaults\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let found = search(root, "help shows env vars");
    assert_eq!(found[0].1, "resolve_envvar", "{found:?}");
}

/// Among definitions the words match alike, the larger one ranks first
/// (`size`): it holds more that can be wrong. Off, the one-liner whose few
/// words are all the query's wins.
#[test]
fn a_larger_definition_ranks_over_a_one_liner_matched_alike() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let body: String = (0..30).map(|i| format!("    step_{i} = {i}\n")).collect();
    write(
        root,
        "render.py",
        &format!(
            "def render_page(template):\n{body}    return template\n\n\n\
             def render_title(template):\n    return template\n"
        ),
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let first = |signal: &str| {
        names(ranked_with(
            &index,
            "render template",
            SearchGroup::Definition,
            signal,
        ))[0]
            .clone()
    };
    assert_eq!(first(""), "render.render_page");
    assert_eq!(first("size=0"), "render.render_title", "the words alone");
    let reason = ranked_with(&index, "render template", SearchGroup::Definition, "")[0]
        .reason
        .clone()
        .unwrap_or_default();
    assert!(reason.contains("from its size"), "{reason}");
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
        "length=0 file=0",
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
    // The arithmetic, without the whole file's share.
    let files = ranked_with(&index, "ledger balance total", SearchGroup::File, "file=0");
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
        "class Pool:\n    \"Connections kept for reuse; reuse them.\"\n\n    def drain(self):\n        return 'spent'\n\n\nclass Queue:\n    def drain(self):\n        return 'spent spent'\n",
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
            "spent reuse",
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
