//! Query commands.

use super::*;

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

/// `def --stdin`: one JSON line per position, in order; a bad position is
/// that line's error and the rest are still answered.
#[test]
fn def_answers_many_positions_from_standard_input() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let out = cli::run_with_stdin(
        BIN,
        &root,
        &["def", "--stdin"],
        "app/main.py:12:14\napp/main.py\n\nnowhere.py:1:1\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{}", stdout(&out));
    assert_eq!(lines[0]["position"], "app/main.py:12:14");
    assert_eq!(lines[0]["results"][0]["path"], "pkg/mod.py");
    assert_eq!(lines[0]["results"][0]["start_line"], 9);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .contains("expected PATH:LINE"));
    assert!(lines[2]["error"].as_str().unwrap().contains("nowhere.py"));
    let both = evident(&root, &["def", "app/main.py:12:14", "--stdin"]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}

/// What the index keeps of git's history is said by `status` (text and
/// JSON), and a file search that a past commit's message lends to names
/// that commit in `--explain`; outside git there is no history.
#[test]
fn status_and_search_say_what_the_history_holds() {
    let (_tmp, root) = fixture_repo();
    assert!(evident(&root, &["index", "-q"]).status.success());
    let out = evident(&root, &["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["history"], serde_json::Value::Null, "not yet in git");

    evident_testkit::git::commit_all(&root, "Start");
    std::fs::write(
        root.join("app/helpers.py"),
        std::fs::read_to_string(root.join("app/helpers.py")).unwrap() + "\nPADDING = 2\n",
    )
    .unwrap();
    evident_testkit::git::commit_all(&root, "Trim the frobnicated padding");
    assert!(evident(&root, &["index", "-q"]).status.success());
    let head = evident_testkit::git::git(&root, &["rev-parse", "HEAD"]);
    let text = stdout(&evident(&root, &["status"]));
    let line = format!("history:    2 commit(s) of {} read", &head.trim()[..12]);
    assert!(text.contains(&line), "{text}");
    let out = evident(&root, &["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["history"]["commits"], 2);
    assert_eq!(status["history"]["head"], head.trim());

    let out = evident(&root, &["search", "--explain", "frobnicated padding clean"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("app/helpers.py:")
            && first.contains("\"Trim the frobnicated padding\"")
            && first.contains("from past commits with messages like the query"),
        "{text}"
    );
}
