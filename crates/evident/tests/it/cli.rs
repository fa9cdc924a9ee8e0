//! The `evident` binary end to end: commands, output formats, exit codes,
//! and what a kill or Ctrl-C during indexing leaves behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use evident_testkit::cli::{self, stderr, stdout};
use evident_testkit::fs::fixture_repo;

const BIN: &str = env!("CARGO_BIN_EXE_evident");

fn evident(dir: &Path, args: &[&str]) -> Output {
    cli::run(BIN, dir, args)
}

/// Every row of the index at `root`, ids replaced by what they point at.
fn dump(root: &Path) -> Vec<String> {
    evident_index::Index::open(root)
        .unwrap()
        .canonical_dump()
        .unwrap()
}

#[test]
fn index_then_query_in_text_and_json() {
    let (_tmp, root) = fixture_repo();
    let out = evident(&root, &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = stdout(&out);
    assert!(
        summary.starts_with("indexed 12 files (12 parsed, 0 unchanged, 0 removed): "),
        "{summary}"
    );
    assert!(
        summary.contains(" definitions, ")
            && summary.contains(" imports, ")
            && summary.contains(" calls; 0 skipped; ")
    );

    let quiet = evident(&root, &["index", "--quiet"]);
    assert!(quiet.status.success());
    assert_eq!(stdout(&quiet), "");
    assert_eq!(stderr(&quiet), "");

    // Skips are counted by reason, in the summary, its JSON and the status.
    let big = "x = 1\n".repeat(2000);
    for name in ["big_a.py", "big_b.py"] {
        std::fs::write(root.join(name), &big).unwrap();
    }
    std::fs::write(root.join("id_rsa_backup.py"), "KEY = 1\n").unwrap();
    let out = evident(&root, &["index", "--max-file-size", "10000"]);
    let summary = stdout(&out);
    assert!(
        summary.contains("; 3 skipped (2 too large, 1 secret file); "),
        "{summary}"
    );
    let out = evident(&root, &["--json", "index", "--max-file-size", "10000"]);
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        json["skipped_by_reason"],
        serde_json::json!({"too large": 2, "secret file": 1})
    );
    let status = stdout(&evident(&root, &["status"]));
    assert!(
        status.contains("skipped:    3 (2 too large, 1 secret file)\n"),
        "{status}"
    );
    for name in ["big_a.py", "big_b.py", "id_rsa_backup.py"] {
        std::fs::remove_file(root.join(name)).unwrap();
    }
    assert!(evident(&root, &["index", "-q"]).status.success());

    // Text: `path:start-end  kind  name` and numbered lines.
    let out = evident(&root, &["symbol", "get_collection_name"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "src/rag_common.py:4-6  function  src.rag_common.get_collection_name  (exact match)\n"
        ),
        "{text}"
    );
    assert!(text.contains("4  def get_collection_name(kind):"), "{text}");

    // JSON: Evidence records, from a subdirectory (the root is found upwards).
    let out = evident(&root.join("pkg/sub"), &["symbol", "compute", "--json"]);
    let records: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let records = records.as_array().unwrap();
    assert_eq!(records.len(), 2);
    for r in records {
        for field in ["path", "start_line", "end_line", "kind", "name", "snippet"] {
            assert!(r.get(field).is_some(), "{field} missing in {r}");
        }
    }
    assert_eq!(records[0]["path"], "pkg/mod.py");

    let out = evident(&root, &["importers", "rag_common", "--json"]);
    let records: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(records[0]["path"], "app/main.py");
    assert_eq!(records[0]["kind"], "import");
    assert_eq!(records[0]["start_line"], 6);

    let out = evident(&root, &["outline", "pkg/mod.py"]);
    assert_eq!(
        stdout(&out),
        "pkg/mod.py\n  class Engine  [4-6]  class Engine:\n    method compute  [5-6]  def compute(self, value):\n  function compute  [9-10]  def compute(value):\n"
    );

    let out = evident(&root, &["read", "app/helpers.py", "1", "2"]);
    assert_eq!(stdout(&out), "app/helpers.py:1-2  file  app.helpers.clean\n1  def clean(text):\n2      return text.strip()\n");

    let out = evident(&root, &["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["complete"], true);
    assert_eq!(status["stale"]["modified"].as_array().unwrap().len(), 0);
}

#[test]
fn exit_codes_and_messages() {
    let (tmp, root) = fixture_repo();
    let out = evident(
        tmp.path(),
        &["symbol", "x", "--repo", root.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no index at") && stderr(&out).contains("run `evident index`"),
        "{}",
        stderr(&out)
    );

    assert!(evident(&root, &["index", "-q"]).status.success());
    let out = evident(&root, &["symbol", "does_not_exist"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no definitions match"));

    for (args, message) in [
        (vec!["read", "app/main.py", "1", "500"], "at most 400 lines"),
        (vec!["read", "app/main.py", "abc", "3"], "is not a number"),
        (vec!["read", "app/main.py", "-3", "3"], "before line 1"),
        (
            vec!["read", "../../etc/passwd", "1", "3"],
            "leaves the repository",
        ),
        (vec!["read", ".git/config", "1", "3"], "secret"),
        (vec!["outline", "nope.py"], "does not exist"),
        (vec!["symbol", "x", "--kind", "widget"], "unknown kind"),
    ] {
        let out = evident(&root, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }

    let out = evident(tmp.path(), &["index", "does/not/exist"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does not exist"));
}

#[test]
fn queries_warn_when_the_index_is_stale() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(
        root.join("app/helpers.py"),
        "def clean(text):\n    return text\n",
    )
    .unwrap();
    let out = evident(&root, &["symbol", "clean"]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("warning: the index is stale: 1 file(s) changed"),
        "{}",
        stderr(&out)
    );
    let status = stdout(&evident(&root, &["status"]));
    assert!(
        status.contains("1 modified, 0 added, 0 deleted"),
        "{status}"
    );
    assert!(evident(&root, &["index", "-q"]).status.success());
    assert_eq!(stderr(&evident(&root, &["symbol", "clean"])), "");
}

/// Many files, so that a signal lands in the middle of a run.
fn big_repo(files: usize) -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = fixture_repo();
    for i in 0..files {
        let dir = root.join(format!("gen/d{}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let body: String = (0..20)
            .map(|j| format!("def f{i}_{j}(x):\n    return g{j}(x) + {i}\n\n"))
            .collect();
        std::fs::write(
            dir.join(format!("m{i}.py")),
            format!("import os\nfrom gen.d0 import m0\n{body}"),
        )
        .unwrap();
    }
    (tmp, root)
}

fn start_index(root: &Path) -> std::process::Child {
    cli::hermetic(BIN)
        .args(["index", "--quiet", "--batch-size", "16"])
        .current_dir(root)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until some batch is committed, so the signal lands mid-run.
fn wait_for_first_batch(root: &Path) {
    let db = root.join(".evident/index.db");
    for _ in 0..2000 {
        let read_only = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        if let Ok(conn) = rusqlite::Connection::open_with_flags(&db, read_only) {
            let files: rusqlite::Result<i64> =
                conn.query_row("SELECT count(*) FROM files", [], |r| r.get(0));
            if files.is_ok_and(|n| n > 0) {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("indexing never committed a batch");
}

fn signal(child: &std::process::Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn kill_during_indexing_leaves_a_consistent_index() {
    let (_tmp, root) = big_repo(3000);
    let mut child = start_index(&root);
    wait_for_first_batch(&root);
    signal(&child, "-KILL");
    child.wait().unwrap();

    let conn = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let files: i64 = conn
        .query_row("SELECT count(*) FROM files", [], |r| r.get(0))
        .unwrap();
    assert!(files > 0 && files < 3012, "killed mid-run: {files} files");
    drop(conn);
    dump(&root); // every file whole: no orphans, counts match rows

    let out = evident(&root, &["index", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let resumed = dump(&root);
    assert!(evident(&root, &["index", "-q", "--rebuild"])
        .status
        .success());
    assert_eq!(
        resumed,
        dump(&root),
        "resumed index differs from a full rebuild"
    );
}

/// What a reader must say about an index that a run may be writing, or that
/// a killed run left: an answer (exit 0), nothing found (1), or, before the
/// first commit of a first run, that there is no index yet. Anything else is
/// returned as a failure.
fn reader_failures(root: &Path) -> Vec<String> {
    let queries: [&[&str]; 5] = [
        &["status"],
        &["symbol", "f1_1"],
        &["search", "return x", "--mode", "bm25"],
        &["callers", "g3"],
        &["importers", "os"],
    ];
    let mut failures = Vec::new();
    for args in queries {
        let out = evident(root, args);
        let err = stderr(&out);
        let ok = matches!(out.status.code(), Some(0 | 1))
            || (out.status.code() == Some(2) && err.contains("no index at"));
        if !ok {
            failures.push(format!("{args:?} -> {:?}: {err}", out.status.code()));
        }
    }
    failures
}

/// A few of `bench/crash.py`'s trials (which runs 100 on Django): kills at
/// random moments of cold, rebuild and incremental runs; readers work on
/// what is left, and the next run ends with the index a clean build makes.
#[test]
fn kills_at_random_moments_resume_to_a_clean_build() {
    let (_tmp, root) = big_repo(800);
    let started = std::time::Instant::now();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let duration = started.elapsed();
    let clean = dump(&root);
    let edited: Vec<PathBuf> = (0..800)
        .step_by(40)
        .map(|i| root.join(format!("gen/d{}/m{i}.py", i % 50)))
        .collect();
    let originals: Vec<Vec<u8>> = edited.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let edit = |on: bool| {
        for (path, original) in edited.iter().zip(&originals) {
            let mut text = original.clone();
            if on {
                text.extend_from_slice(b"\ndef probe(y):\n    return g1(y)\n");
            }
            std::fs::write(path, text).unwrap();
        }
    };
    edit(true);
    assert!(evident(&root, &["index", "-q"]).status.success());
    let edited_clean = dump(&root);
    edit(false);
    assert!(evident(&root, &["index", "-q"]).status.success());

    let seed = evident_testkit::seed("kills_at_random_moments");
    let mut state = seed | 1;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 1000) as f64 / 1000.0
    };
    let mut edited_now = false;
    for (trial, kind) in ["cold", "rebuild", "incremental", "cold", "incremental"]
        .into_iter()
        .enumerate()
    {
        let mut args = vec!["index", "--quiet", "--batch-size", "16"];
        match kind {
            "cold" => std::fs::remove_dir_all(root.join(".evident")).unwrap(),
            "rebuild" => args.push("--rebuild"),
            _ => {
                edited_now = !edited_now;
                edit(edited_now);
            }
        }
        let expected = if edited_now { &edited_clean } else { &clean };
        let delay = duration.mul_f64(1.1 * uniform());
        let context = format!("seed {seed}, trial {trial} ({kind}), kill after {delay:?}");
        let mut child = cli::hermetic(BIN)
            .args(&args)
            .current_dir(&root)
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            signal(&child, "-KILL");
        }
        child.wait().unwrap();
        assert_eq!(reader_failures(&root), Vec::<String>::new(), "{context}");
        let out = evident(&root, &["index", "-q"]);
        assert!(out.status.success(), "{context}: {}", stderr(&out));
        assert!(
            dump(&root) == *expected,
            "{context}: the resumed index differs from a clean build"
        );
    }
}

/// Readers never fail while a run writes: WAL gives each a committed state.
#[test]
fn queries_while_indexing_never_fail() {
    let (_tmp, root) = big_repo(1500);
    for run in ["cold", "incremental"] {
        if run == "incremental" {
            for i in (0..1500).step_by(10) {
                let path = root.join(format!("gen/d{}/m{i}.py", i % 50));
                let mut text = std::fs::read_to_string(&path).unwrap();
                text.push_str("\ndef probe(y):\n    return g2(y)\n");
                std::fs::write(path, text).unwrap();
            }
        }
        let mut child = start_index(&root);
        let mut rounds = 0;
        while child.try_wait().unwrap().is_none() {
            let failures = reader_failures(&root);
            assert_eq!(failures, Vec::<String>::new(), "{run} run, round {rounds}");
            rounds += 1;
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(rounds > 0, "the {run} run ended before any query ran");
        assert!(reader_failures(&root).is_empty());
    }
}

#[test]
fn ctrl_c_during_indexing_stops_cleanly_and_resumes() {
    let (_tmp, root) = big_repo(3000);
    let child = start_index(&root);
    wait_for_first_batch(&root);
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("interrupted; the index keeps every batch committed so far"),
        "{}",
        stderr(&out)
    );

    let status = stdout(&evident(&root, &["status"]));
    assert!(status.contains("the last run was interrupted"), "{status}");
    let warned = evident(&root, &["symbol", "f1_1"]);
    assert!(
        stderr(&warned).contains("did not finish"),
        "{}",
        stderr(&warned)
    );

    assert!(evident(&root, &["index", "-q"]).status.success());
    let resumed = dump(&root);
    assert!(evident(&root, &["index", "-q", "--rebuild"])
        .status
        .success());
    assert_eq!(resumed, dump(&root));
}

#[test]
fn call_graph_commands_in_text_json_dot_and_mermaid() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());

    let out = evident(&root, &["callers", "get_collection_name"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("app/main.py:11-11  call  app.main.main  (calls src.rag_common.get_collection_name as `get_collection_name`)\n"), "{}", stdout(&out));

    let out = evident(&root, &["callees", "app.main.main", "--json"]);
    let calls: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = calls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["get_collection_name", "helpers.clean", "m.compute", "w"]
    );

    let out = evident(&root, &["impact", "walk", "--max-depth", "4"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("impact of pkg.sub.deep.walk (pkg/sub/deep.py:4-5)\n"),
        "{text}"
    );
    assert!(text.contains("risk: 2 direct caller(s)"), "{text}");
    let out = evident(&root, &["impact", "walk", "--json"]);
    let impact: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(impact["direct_callers"], 2);
    assert_eq!(impact["nodes"][0]["depth"], 1);
    let dot = stdout(&evident(&root, &["impact", "walk", "--format", "dot"]));
    assert!(
        dot.starts_with("digraph calls {")
            && dot.contains("\"app.main.main\" -> \"pkg.sub.deep.walk\";"),
        "{dot}"
    );
    let mermaid = stdout(&evident(
        &root,
        &["graph", "--format", "mermaid", "--path", "app"],
    ));
    assert!(
        mermaid.starts_with("flowchart LR\n") && mermaid.contains("[\"app.main.main\"] -->"),
        "{mermaid}"
    );
    // Pictures: a standalone SVG with every node of the walk labelled.
    for args in [
        &["impact", "walk", "--format", "svg"][..],
        &["callers", "walk", "--format", "svg"][..],
        &["graph", "--format", "svg", "--path", "app"][..],
    ] {
        let svg = stdout(&evident(&root, args));
        assert!(
            svg.contains("<svg") && svg.trim_end().ends_with("</svg>"),
            "{args:?}: {svg}"
        );
        assert!(svg.contains(">app.main.main</tspan>"), "{args:?}: {svg}");
    }
    let graph: serde_json::Value =
        serde_json::from_slice(&evident(&root, &["graph"]).stdout).unwrap();
    assert!(graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["caller"] == "app.main.main" && e["confidence"] == "exact"));

    let out = evident(&root, &["def", "app/main.py:12:14"]);
    assert!(
        stdout(&out).starts_with("pkg/mod.py:9-10  function  pkg.mod.compute\n"),
        "{}",
        stdout(&out)
    );
    let out = evident(&root, &["def", "app/main.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expected PATH:LINE"),
        "{}",
        stderr(&out)
    );

    let out = evident(&root, &["callers", "compute"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("ambiguous") && stderr(&out).contains("pkg.mod.Engine.compute"),
        "{}",
        stderr(&out)
    );
    let out = evident(&root, &["impact", "get_colection_name"]);
    assert!(
        stderr(&out).contains("did you mean get_collection_name"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn diff_command_reports_touched_definitions() {
    let (_tmp, root) = fixture_repo();
    let git = |args: &[&str]| evident_testkit::git::git(&root, args);
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    std::fs::write(
        root.join("app/helpers.py"),
        "def clean(text):\n    return text\n",
    )
    .unwrap();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let out = evident(&root, &["diff"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("working tree vs HEAD: 1 changed file(s)"),
        "{text}"
    );
    assert!(
        text.contains("modified function app.helpers.clean  app/helpers.py:1-2  callers: 1 direct"),
        "{text}"
    );
    assert!(
        text.contains("\nrisk: low: 1 file(s) and 1 definition(s) changed"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&evident(&root, &["diff", "--json"]).stdout).unwrap();
    assert_eq!(json["touched"][0]["change"], "modified");
    assert_eq!(json["hunks"][0]["kind"], "diff_hunk");
    // The touched definition and what reaches it, as a picture.
    let svg = stdout(&evident(&root, &["diff", "--format", "svg"]));
    assert!(svg.contains(">app.helpers.clean</tspan>"), "{svg}");
    assert!(svg.contains(">app.main.main</tspan>"), "{svg}");
}

#[test]
fn two_indexers_at_once_both_finish_consistently() {
    let (_tmp, root) = big_repo(400);
    let first = start_index(&root);
    let second = start_index(&root);
    for child in [first, second] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let both = dump(&root);
    assert!(evident(&root, &["index", "-q", "--rebuild"])
        .status
        .success());
    assert_eq!(both, dump(&root));
}

#[test]
fn search_ranks_chunks_and_explains() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "--quiet"]).status.success());
    let out = evident(
        &root,
        &[
            "search",
            "get_collection_name",
            "--mode",
            "bm25",
            "--json",
            "--explain",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let results: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let top = &results[0];
    assert_eq!(top["name"], "get_collection_name");
    assert!(top["score"].as_f64().unwrap() > 0.0);
    assert!(
        top["reason"].as_str().unwrap().starts_with("exact name"),
        "{top}"
    );
    assert!(
        stderr(&out).is_empty(),
        "bm25 mode says nothing about embedders"
    );

    // Hybrid without an embedder (no model files, none configured) says so,
    // and ranks by BM25.
    let no_models = tempfile::tempdir().unwrap();
    let without_models = |args: &[&str]| {
        cli::command(BIN, &root)
            .env("EVIDENT_MODEL_CACHE", no_models.path())
            .args(args)
            .output()
            .unwrap()
    };
    let out = without_models(&["search", "collection name"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("no embedding model: the default one is not fetched"));
    assert!(stdout(&out).contains("get_collection_name"));

    for (args, message) in [
        (vec!["search", "\"*("], "no words to search for"),
        (
            vec!["search", "x", "--mode", "vector"],
            "no embedding model",
        ),
        (vec!["search", "x", "--path", "["], "not a valid glob"),
        (
            vec!["search", "x", "--signal", "speed=2"],
            "no signal is named \"speed\"; the signals are calls, class, imports",
        ),
        (
            vec!["search", "x", "--signal", "calls"],
            "expected NAME=WEIGHT",
        ),
        (
            vec!["search", "x", "--signal", "tests=-1"],
            "is not a weight",
        ),
    ] {
        let out = without_models(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    // Nothing matches the words: exit 1. (Hybrid would still show the
    // nearest vectors, when there are vectors.)
    let out = evident(&root, &["search", "zzzqqq", "--mode", "bm25"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn sources_and_source_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("README.md"),
        "# Tool\n\nIntro.\n\n## Setup\n\nStep one.\nStep two.\n",
    )
    .unwrap();
    std::fs::write(root.join("main.py"), "def main():\n    pass\n").unwrap();
    assert!(evident(root, &["index", "--quiet"]).status.success());
    let out = evident(root, &["sources"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = stdout(&out);
    let id = line.split_whitespace().next().unwrap().to_string();
    assert!(
        id.starts_with("doc-") && line.contains("README.md  Tool  (8 lines)"),
        "{line}"
    );
    assert!(!line.contains("Intro"), "listing never shows content");

    let out = evident(root, &["source", &id, "--section", "setup"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("README.md:5-8  doc  Setup"),
        "{}",
        stdout(&out)
    );
    let out = evident(root, &["source", &id, "--lines", "1-1", "--json"]);
    let ev: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (ev[0]["snippet"].as_str(), ev[0]["doc_id"].as_str()),
        (Some("# Tool"), Some(id.as_str()))
    );

    let out = evident(root, &["source", "doc-ffffffffffff"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no document has the ID"));
    let out = evident(root, &["sources", "--name-contains", &"y".repeat(81)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("at most 80"));
    let out = evident(root, &["source", &id, "--lines", "3"]);
    assert!(stderr(&out).contains("expected A-B"), "{}", stderr(&out));
}

#[test]
fn knowledge_directories_outside_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let handbook = dir.path().join("handbook");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(handbook.join("ops")).unwrap();
    std::fs::write(root.join("main.py"), "def main():\n    pass\n").unwrap();
    std::fs::write(
        handbook.join("ops/deploy.md"),
        "# Deploying\n\nRoll out with canaries.\n\n## Rollback\n\nRevert the tag.\n",
    )
    .unwrap();
    // Not documents, or not to be read: code, a secret, a symlink out of the directory.
    std::fs::write(handbook.join("tool.py"), "def tool():\n    pass\n").unwrap();
    std::fs::write(handbook.join(".env"), "TOKEN=1\n").unwrap();
    std::fs::write(dir.path().join("private.md"), "# Private\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("private.md"), handbook.join("escape.md")).unwrap();
    std::fs::write(
        root.join("evident.toml"),
        "[docs]\ndirs = [\"../handbook\"]\n",
    )
    .unwrap();

    let out = evident(&root, &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = evident(&root, &["sources", "--json"]);
    let docs: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let paths: Vec<&str> = docs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["@handbook/ops/deploy.md"], "{docs:#}");
    let id = docs[0]["doc_id"].as_str().unwrap();

    let out = evident(&root, &["source", id, "--section", "rollback"]);
    assert!(
        stdout(&out).starts_with("@handbook/ops/deploy.md:5-7  doc  Rollback"),
        "{}",
        stdout(&out)
    );
    let out = evident(&root, &["search", "canaries", "--mode", "bm25", "--json"]);
    let hits: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(hits[0]["path"], "@handbook/ops/deploy.md", "{hits:#}");
    let out = evident(&root, &["read", "@handbook/ops/deploy.md", "1", "3"]);
    assert!(
        out.status.success() && stdout(&out).contains("Roll out with canaries."),
        "{}",
        stderr(&out)
    );

    // The same sandbox inside it: no escape, no symlink out, no secret, no code.
    for (path, why) in [
        ("@handbook/../private.md", "leaves the repository"),
        ("@handbook/escape.md", "symlink that leads outside"),
        ("@handbook/.env", "secret file"),
        (
            "@handbook/tool.py",
            "only documents are read from @handbook",
        ),
    ] {
        let out = evident(&root, &["read", path, "1", "1"]);
        assert!(!out.status.success(), "{path} was read");
        assert!(stderr(&out).contains(why), "{path}: {}", stderr(&out));
    }

    // Edits there are picked up incrementally; removing the directory from config drops its documents.
    std::fs::write(handbook.join("faq.md"), "# FAQ\n\nAsk.\n").unwrap();
    let out = evident(&root, &["index"]);
    assert!(
        stdout(&out).starts_with("indexed 3 files (1 parsed, 2 unchanged, 0 removed)"),
        "{}",
        stdout(&out)
    );
    let again = evident(&root, &["sources", "--json"]);
    let docs2: serde_json::Value = serde_json::from_str(&stdout(&again)).unwrap();
    assert_eq!(docs2.as_array().unwrap().len(), 2);
    assert!(
        docs2.as_array().unwrap().iter().any(|d| d["doc_id"] == id),
        "the ID is stable"
    );
    std::fs::write(root.join("evident.toml"), "").unwrap();
    let out = evident(&root, &["index"]);
    assert!(stdout(&out).contains("2 removed"), "{}", stdout(&out));

    // Bad entries are configuration errors that name the problem.
    for (dirs, why) in [
        ("[\"../nowhere\"]", "../nowhere"),
        ("[\".\"]", "inside the repository"),
        ("[\"main.py\"]", "is not a directory"),
    ] {
        std::fs::write(
            root.join("evident.toml"),
            format!("[docs]\ndirs = {dirs}\n"),
        )
        .unwrap();
        let out = evident(&root, &["index"]);
        assert_eq!(out.status.code(), Some(2), "{dirs}");
        assert!(
            stderr(&out).contains("docs.dirs") && stderr(&out).contains(why),
            "{dirs}: {}",
            stderr(&out)
        );
    }
}

/// `evident outline BIG | head -c 1`: the reader goes away before the output is
/// written, and the command ends quietly (SIGPIPE), with no panic message.
#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let (_tmp, root) = fixture_repo();
    let body: String = (0..3000).map(|i| format!("VALUE_{i} = {i}\n")).collect();
    std::fs::write(root.join("big.py"), body).unwrap();
    assert!(evident(&root, &["index"]).status.success());
    let mut child = cli::command(BIN, &root)
        .args(["outline", "big.py", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end at once: the command's first write fails.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.status.success() || out.status.signal() == Some(libc_sigpipe()),
        "{:?}: {stderr}",
        out.status
    );
}

/// SIGPIPE's number on Linux and the BSDs.
fn libc_sigpipe() -> i32 {
    13
}
