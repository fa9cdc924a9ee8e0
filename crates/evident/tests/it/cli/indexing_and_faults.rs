//! Indexing and faults.

use super::*;

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
