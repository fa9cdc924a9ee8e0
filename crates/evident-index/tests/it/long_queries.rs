//! Long queries read for what they are: traceback frames, paths and dotted
//! names resolved against the index, and file roles (tests, test helpers,
//! documentation, change logs) ranked under the source for a bug report.
//! Each test also runs with the signal off, so it shows what the signal does.

use evident_index::{index_repo, Evidence, Index, IndexOptions, SearchGroup, SearchQuery, Signals};
use evident_testkit::fs::write_in as write;

fn ranked(index: &Index, query: &str, group: SearchGroup, signal: &str) -> Vec<Evidence> {
    let mut signals = Signals::for_group(group);
    for assignment in signal.split_whitespace() {
        signals.set(assignment).unwrap();
    }
    let q = SearchQuery {
        group,
        limit: 20,
        signals: Some(signals),
        ..crate::common::chunk_query(query)
    };
    index.search(&q).unwrap()
}

fn first(index: &Index, query: &str, signal: &str) -> String {
    ranked(index, query, SearchGroup::File, signal)
        .first()
        .map(|e| e.path.clone())
        .unwrap_or_default()
}

/// A repository where the words of every report below match a decoy
/// better than the file its traceback names: the decoy says the prose's
/// words and the names the trace shows (settle, conn, frame, pop, wire).
fn polyglot() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let decoy = "timeout while reading the response body; the response body timeout; \
                 settle the wire conn frame: pop it, return it; index error, empty list";
    write(
        root,
        "py/app/decoy.py",
        &format!("def handle():\n    \"\"\"{decoy}\"\"\"\n    return 1\n"),
    );
    write(
        root,
        "py/app/wire.py",
        "def settle(frame):\n    return frame.pop()\n",
    );
    write(
        root,
        "js/lib/decoy.js",
        &format!("// {decoy}\nfunction handle() {{ return 1 }}\nmodule.exports = handle\n"),
    );
    write(
        root,
        "js/lib/wire.js",
        "function settle(frame) {\n  return frame.pop()\n}\nmodule.exports = settle\n",
    );
    write(
        root,
        "rs/src/decoy.rs",
        &format!("/// {decoy}\npub fn handle() -> u32 {{\n    1\n}}\n"),
    );
    write(
        root,
        "rs/src/wire.rs",
        "pub fn settle(frame: &mut Vec<u8>) -> Option<u8> {\n    frame.pop()\n}\n",
    );
    write(
        root,
        "go/decoy.go",
        &format!("package wire\n\n// {decoy}\nfunc Handle() int {{\n\treturn 1\n}}\n"),
    );
    write(root, "go/wire.go", "package wire\n\ntype Conn struct{}\n\nfunc (c *Conn) Settle(frame []byte) byte {\n\treturn frame[0]\n}\n");
    write(root, "java/com/acme/Decoy.java", &format!("package com.acme;\n\n/** {decoy} */\nclass Decoy {{\n  int handle() {{ return 1; }}\n}}\n"));
    write(
        root,
        "java/com/acme/Wire.java",
        "package com.acme;\n\nclass Wire {\n  byte settle(byte[] frame) { return frame[0]; }\n}\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    dir
}

const PROSE: &str =
    "Timeout while reading the response body. The response body timeout fires early:";

#[test]
fn a_traceback_names_its_file_in_five_languages() {
    let dir = polyglot();
    let index = Index::open(dir.path()).unwrap();
    let traces = [
        (
            "py/app/wire.py",
            "Traceback (most recent call last):\n  File \"/home/u/venv/lib/site-packages/app/wire.py\", line 2, in settle\n    return frame.pop()\nIndexError: pop from empty list",
        ),
        (
            "js/lib/wire.js",
            "TypeError: frame.pop is not a function\n    at settle (/srv/app/node_modules/pkg/lib/wire.js:2:16)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
        ),
        (
            "rs/src/wire.rs",
            "thread 'main' panicked at rs/src/wire.rs:2:5:\nstack backtrace:\n   0: wire::settle\n             at /home/u/code/rs/src/wire.rs:2:5",
        ),
        (
            "go/wire.go",
            "panic: runtime error: index out of range [0] with length 0\n\ngoroutine 1 [running]:\nexample.com/wire.(*Conn).Settle(...)\n\t/home/u/src/example.com/go/wire.go:6 +0x1d",
        ),
        (
            "java/com/acme/Wire.java",
            "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: 0\n\tat com.acme.Wire.settle(Wire.java:4)\n\tat com.acme.Main.main(Main.java:9)",
        ),
    ];
    for (named, trace) in traces {
        let query = format!("{PROSE}\n\n{trace}");
        assert_eq!(first(&index, &query, ""), named, "{trace}");
        assert_ne!(
            first(&index, &query, "mentions=0 file=0"),
            named,
            "without the frames the prose wins: {trace}"
        );
        let explained = ranked(&index, &query, SearchGroup::File, "");
        let reason = explained[0].reason.clone().unwrap_or_default();
        assert!(reason.contains("named in the query: frame"), "{reason}");
    }
}

#[test]
fn a_frame_names_its_definition() {
    let dir = polyglot();
    let index = Index::open(dir.path()).unwrap();
    let query = format!("{PROSE}\n  File \"/opt/app/wire.py\", line 2, in settle");
    let found = ranked(&index, &query, SearchGroup::Definition, "");
    assert_eq!(found[0].name, "settle");
    assert_eq!(found[0].path, "py/app/wire.py");
}

#[test]
fn written_paths_and_dotted_names_name_their_files() {
    let dir = polyglot();
    let index = Index::open(dir.path()).unwrap();
    for (named, said) in [
        ("py/app/wire.py", "The bug is in app/wire.py, I think."),
        ("py/app/wire.py", "Calling app.wire.settle twice breaks it."),
        ("go/wire.go", "`Conn.Settle` returns the wrong byte."),
        ("js/lib/wire.js", "see lib/wire.js"),
    ] {
        let query = format!("{PROSE} {said}");
        assert_eq!(first(&index, &query, ""), named, "{said}");
        assert_ne!(first(&index, &query, "mentions=0 file=0"), named, "{said}");
    }
    // A path that names a file of another project names nothing here.
    let query = format!("{PROSE} It fails in /usr/lib/python3/json/wire.py");
    assert_eq!(
        first(&index, &query, ""),
        first(&index, &query, "mentions=0")
    );
}

#[test]
fn test_helpers_docs_and_change_logs_rank_under_the_source_they_describe() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let words = "parse the duration option: a negative duration option is accepted";
    write(
        root,
        "src/pkg/options.py",
        "def to_number(text):\n    # a negative duration option is refused\n    value = float(text)\n    return value\n",
    );
    write(
        root,
        "src/pkg/testing/helpers.py",
        &format!("def run_with(option):\n    \"\"\"{words}; {words}\"\"\"\n    return option\n"),
    );
    write(
        root,
        "docs/options.rst",
        &format!("Options\n=======\n\n{words}. {words}.\n"),
    );
    write(
        root,
        "CHANGES.rst",
        &format!("Version 1.2\n-----------\n\n- {words}\n- {words}\n"),
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let report = "A negative duration option is accepted: parsing `--timeout -5` gives -5 instead of an error";
    assert_eq!(first(&index, report, ""), "src/pkg/options.py");
    let order: Vec<String> = ranked(&index, report, SearchGroup::File, "tests=0 docs=0 aside=0")
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_ne!(order[0], "src/pkg/options.py", "the words alone: {order:?}");
    let explained = ranked(&index, report, SearchGroup::File, "");
    let roles: Vec<String> = explained.iter().filter_map(|e| e.reason.clone()).collect();
    for role in [
        "a test file: counts",
        "documentation: counts",
        "a change log: counts",
    ] {
        assert!(roles.iter().any(|r| r.contains(role)), "{role}: {roles:#?}");
    }
    // Asked for by name, a role counts whole.
    assert_eq!(
        first(&index, "the docs of the duration option", ""),
        "docs/options.rst"
    );
}

/// A long report's words spread over the definitions of the file to
/// change; a decoy holds a few of them together in one docstring. Chunk by
/// chunk the decoy wins; the file as one document holds most of the words.
#[test]
fn a_long_reports_words_spread_over_a_file_find_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app/cache.py",
        "def expire(entry, clock):\n    return entry.deadline < clock.now()\n\n\
         def evict(entries):\n    entries.pop_oldest()\n\n\
         def refresh(entry, ttl):\n    entry.deadline += ttl\n\n\
         def lookup(entries, key):\n    return entries.get(key)\n\n\
         def stale(entry, grace):\n    return entry.age > grace\n\n\
         def warm(loader, keys):\n    return [loader(k) for k in keys]\n",
    );
    write(
        root,
        "app/notes.py",
        "def summary():\n    \"\"\"Entries expire after a refresh of the entry ttl; \
         stale entries expire by the clock deadline. Lookup.\"\"\"\n    return 0\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let report = "Entries expire too early after a refresh\n\n\
        When I refresh an entry with a new ttl, the next lookup still treats it as stale \
        and evicts it, although the grace period has not passed. Warming the cache with a \
        loader over many keys makes it worse: the clock seems to be read before the deadline \
        is moved, so expire returns true and evict drops the entry. I expected the entry to \
        stay until its deadline.";
    assert_eq!(first(&index, report, ""), "app/cache.py");
    assert_eq!(
        first(&index, report, "file=0"),
        "app/notes.py",
        "chunk by chunk, the decoy's words meet in one place"
    );
    let reasons = ranked(&index, report, SearchGroup::File, "")[0]
        .reason
        .clone()
        .unwrap_or_default();
    assert!(reasons.contains("from the whole file's words"), "{reasons}");
}

/// A report holds more distinct words than a search ORs together; the
/// words no code holds (a user's own names, a story) give way to those it
/// does, wherever they stand in the text.
#[test]
fn a_report_over_the_term_cap_keeps_the_words_the_code_holds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app/ledger.py",
        "def reconcile(ledger, settlement):\n    return ledger.balance == settlement.total\n",
    );
    write(root, "app/greet.py", "def greet(name):\n    return name\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let letter = |i: usize| char::from(b'a' + i as u8);
    let report: String = (0..70)
        .map(|i| format!("zq{}{} ", letter(i / 26), letter(i % 26)))
        .collect();
    // The words are looked up in the index's vocabulary by their stems:
    // "reconciling" and "settlements" are held as `reconcil` and `settlement`.
    for tail in [
        "and then reconcile fails for the settlement",
        "and then reconciling fails for the settlements",
    ] {
        assert_eq!(
            first(&index, &format!("{report}{tail}"), ""),
            "app/ledger.py"
        );
    }
}

/// The reason's gain for the evidence that named a result (`+X named in
/// the query: ...`), 0 when nothing named it.
fn named_gain(found: &[Evidence], path: &str) -> f64 {
    let reason = found
        .iter()
        .find(|e| e.path == path)
        .and_then(|e| e.reason.clone())
        .unwrap_or_default();
    reason
        .split("; ")
        .find(|part| part.contains("named in the query"))
        .and_then(|part| part.trim_start_matches('+').split(' ').next()?.parse().ok())
        .unwrap_or(0.0)
}

/// A trace names every file it passes through; the innermost frame in the
/// repository is where the failure surfaced, whichever end a language
/// writes it at.
#[test]
fn the_innermost_frame_of_a_trace_names_its_file_most() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app/entry.py",
        "from app.wire import settle\n\ndef run(frame):\n    return settle(frame)\n",
    );
    write(
        root,
        "app/wire.py",
        "def settle(frame):\n    return frame.pop()\n",
    );
    write(root, "lib/entry.js", "const settle = require('./wire')\nfunction run(frame) {\n  return settle(frame)\n}\nmodule.exports = run\n");
    write(
        root,
        "lib/wire.js",
        "function settle(frame) {\n  return frame.pop()\n}\nmodule.exports = settle\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let python = "It fails:\nTraceback (most recent call last):\n  \
        File \"/srv/app/entry.py\", line 4, in run\n  File \"/srv/app/wire.py\", line 2, in settle\n\
        IndexError: pop from empty list";
    let js = "It fails:\nTypeError: frame.pop is not a function\n    at settle (/srv/lib/wire.js:2:16)\n    \
        at run (/srv/lib/entry.js:3:10)";
    for (query, inner, outer) in [
        (python, "app/wire.py", "app/entry.py"),
        (js, "lib/wire.js", "lib/entry.js"),
    ] {
        let found = ranked(&index, query, SearchGroup::File, "");
        assert_eq!(found[0].path, inner, "{query}");
        let (inner, outer) = (named_gain(&found, inner), named_gain(&found, outer));
        assert!(
            outer > 0.0 && inner > 1.5 * outer,
            "{inner} against {outer}: {query}"
        );
    }
}

/// A report names the API it called; the fault is in what that API runs,
/// in another file. The named definition's callees are named too, at a
/// share of its strength: the callee climbs over a file whose words match
/// better, and a file the API does not call gains nothing.
#[test]
fn a_named_api_lends_to_what_it_calls_in_another_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pkg/api.py",
        "from pkg.codec import split_lines\n\ndef read_lines(body):\n    return split_lines(body)\n",
    );
    write(
        root,
        "pkg/codec.py",
        "def split_lines(text):\n    # a bare carriage return ends a line\n    return text.splitlines()\n",
    );
    write(
        root,
        "pkg/other.py",
        "def join_lines(lines):\n    # a bare carriage return ends a line of a response body\n    return '\\r'.join(lines)\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let report = "`read_lines()` merges two lines of a response body when a line ends with a bare carriage return";
    let rank = |signal: &str, path: &str| {
        let found = ranked(&index, report, SearchGroup::File, signal);
        found.iter().position(|e| e.path == path).unwrap()
    };
    assert!(rank("", "pkg/codec.py") < rank("", "pkg/other.py"));
    assert!(
        rank("callees=0", "pkg/codec.py") > rank("callees=0", "pkg/other.py"),
        "the words alone favour the other file"
    );
    let found = ranked(&index, report, SearchGroup::File, "");
    let codec = found.iter().find(|e| e.path == "pkg/codec.py").unwrap();
    let reason = codec.reason.clone().unwrap_or_default();
    assert!(reason.contains("called by name `read_lines`"), "{reason}");
    assert_eq!(named_gain(&found, "pkg/other.py"), 0.0);
}

/// A commit's or report's first line may name the part of the project it is
/// about before a colon (`printer: ...`, `fix(printer): ...`). That area's
/// files rank over a file elsewhere whose words match better; a scope that
/// names no directory or file changes nothing.
#[test]
fn a_scope_before_the_colon_lifts_its_area() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "crates/grep-printer/src/summary.rs",
        "pub fn count(lines: &[u8]) -> usize {\n    lines.len()\n}\n",
    );
    write(
        root,
        "crates/searcher/src/lines.rs",
        "/// Count the matched lines; count matched lines again.\n\
         pub fn matched(lines: &[u8]) -> usize {\n    lines.len()\n}\n",
    );
    // Other files, so that the words' document frequencies mean something.
    for name in ["walk", "glob", "config", "flags", "decode", "color"] {
        write(
            root,
            &format!("crates/{name}/src/lib.rs"),
            &format!("pub fn {name}_setup() -> u32 {{\n    0\n}}\n"),
        );
    }
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    for message in [
        "printer: fix the count of matched lines",
        "fix(printer): fix the count of matched lines",
    ] {
        assert_eq!(
            first(&index, message, ""),
            "crates/grep-printer/src/summary.rs",
            "{message}"
        );
        assert_eq!(
            first(&index, message, "mentions=0"),
            "crates/searcher/src/lines.rs",
            "the words alone"
        );
    }
    let found = ranked(
        &index,
        "printer: fix the count of matched lines",
        SearchGroup::File,
        "",
    );
    let reason = found[0].reason.as_deref().unwrap_or("");
    assert!(reason.contains("scope `printer:`"), "{reason}");
    assert_eq!(
        first(&index, "fix: the count of matched lines", ""),
        "crates/searcher/src/lines.rs",
        "no directory or file is named fix"
    );
    let everything = ranked(
        &index,
        "crates: fix the count of matched lines",
        SearchGroup::File,
        "",
    );
    let reason = everything[0].reason.as_deref().unwrap_or("");
    assert!(
        !reason.contains("scope"),
        "an area of every file tells nothing apart: {reason}"
    );
}
