//! What a shell and a terminal get: completion scripts that bash loads and
//! completes with, man pages that groff renders without a warning, a
//! version that names the commit, and colour only where it is wanted
//! (`--color`, NO_COLOR, a terminal, the daemon's client deciding).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use evident_testkit::cli::{self, stderr, stdout};
use evident_testkit::fs::fixture_repo;

const BIN: &str = env!("CARGO_BIN_EXE_evident");
const PATH_COLOUR: &str = "\u{1b}[35m";

#[test]
fn bash_completes_commands_and_flags_from_the_script() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::run(BIN, dir.path(), &["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = dir.path().join("evident.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // What bash's programmable completion does at `evident sy<TAB>` and at
    // `evident search --rer<TAB>`: call the registered function with the words.
    let complete = |words: &str, current: usize| {
        let program = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD={current}; COMP_LINE='{words}'; \
             COMP_POINT=${{#COMP_LINE}}; _evident evident \"${{COMP_WORDS[$COMP_CWORD]}}\" \
             \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash")
            .args(["-c", &program])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let commands = complete("evident sy", 1);
    assert_eq!(
        commands.lines().collect::<Vec<_>>(),
        ["symbol"],
        "{commands}"
    );
    let flags = complete("evident search --rer", 2);
    assert_eq!(
        flags.lines().collect::<Vec<_>>(),
        ["--rerank", "--rerank-top", "--rerank-budget"],
        "{flags}"
    );
}

#[test]
fn man_pages_render_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::run(BIN, dir.path(), &["man", "--out-dir", "man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pages = dir.path().join("man");
    for page in ["evident.1", "evident-search.1", "evident-daemon-start.1"] {
        let out = Command::new("groff")
            // -P-cbou: plain text, no overstriking for bold or underline.
            .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
            .arg(pages.join(page))
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{page}: {}",
            stderr(&out)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("SYNOPSIS"), "{page}: {text}");
    }
    let search = std::fs::read_to_string(pages.join("evident-search.1")).unwrap();
    assert!(search.contains("rerank"), "{search}");
    // A hidden command gets no page.
    assert!(!pages.join("evident-man.1").exists());
}

#[test]
fn the_version_names_the_commit_it_was_built_from() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::run(BIN, dir.path(), &["--version"]);
    let version = stdout(&out);
    let commit = Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    if !commit.status.success() {
        return; // built from a tarball: there is no commit to name
    }
    let head = stdout(&commit);
    let head = head.trim();
    // The binary was built at some commit of this checkout: HEAD's own, or
    // (with uncommitted work since) an ancestor's. It names one that exists.
    let named = version
        .split(['(', ' '])
        .find(|w| w.len() == head.len() && w.chars().all(|c| c.is_ascii_hexdigit()))
        .unwrap_or_else(|| panic!("no commit in {version:?}"));
    let exists = Command::new("git")
        .args(["cat-file", "-e", &format!("{named}^{{commit}}")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(exists.success(), "{version}");
    assert!(version.starts_with(&format!("evident {} (", env!("CARGO_PKG_VERSION"))));
}

/// `evident args` with its standard output on a pseudo-terminal: what it
/// wrote there (the terminal's line discipline turns `\n` into `\r\n`).
fn at_a_terminal(root: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let (mut master, slave) = evident_testkit::pty::open();
    let mut command = cli::hermetic(BIN);
    command.args(args).current_dir(root);
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command
        .stdout(Stdio::from(slave))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The child holds the only other copy of the slave: reading ends (EIO)
    // once it exits.
    drop(command);
    let mut text = Vec::new();
    let _ = master.read_to_end(&mut text);
    child.wait().unwrap();
    String::from_utf8_lossy(&text).into_owned()
}

fn piped(root: &Path, args: &[&str]) -> Output {
    cli::run(BIN, root, args)
}

#[test]
fn colour_goes_to_a_terminal_unless_no_color_or_never_says_otherwise() {
    let (_tmp, root) = fixture_repo();
    assert!(piped(&root, &["index", "-q"]).status.success());
    let query = ["symbol", "get_collection_name", "--no-daemon"];

    let coloured = at_a_terminal(&root, &query, &[]);
    assert!(
        coloured.contains(&format!("{PATH_COLOUR}src/rag_common.py:")),
        "{coloured:?}"
    );
    let plain = at_a_terminal(&root, &query, &[("NO_COLOR", "1")]);
    assert!(
        !plain.contains('\u{1b}') && plain.contains("src/rag_common.py:"),
        "{plain:?}"
    );
    // An empty NO_COLOR is not set (no-color.org).
    assert!(at_a_terminal(&root, &query, &[("NO_COLOR", "")]).contains(PATH_COLOUR));
    let never = at_a_terminal(&root, &[&query[..], &["--color", "never"]].concat(), &[]);
    assert!(!never.contains('\u{1b}'), "{never:?}");

    // A pipe gets plain text, unless `always` is asked for; then only the
    // escapes differ, and what the repository holds stays escaped.
    let piped_plain = stdout(&piped(&root, &query));
    assert!(!piped_plain.contains('\u{1b}'));
    let piped_always = stdout(&piped(&root, &[&query[..], &["--color=always"]].concat()));
    assert!(piped_always.contains(PATH_COLOUR));
    assert_eq!(strip_sgr(&piped_always), piped_plain);
    // JSON has no colour, whatever is asked.
    let json = stdout(&piped(
        &root,
        &[&query[..], &["--json", "--color=always"]].concat(),
    ));
    assert!(!json.contains('\u{1b}'));
}

#[test]
fn through_a_daemon_colour_is_the_clients_terminal_s_to_decide() {
    let (_tmp, root) = fixture_repo();
    assert!(piped(&root, &["index", "-q"]).status.success());
    let started = piped(&root, &["daemon", "start", "--idle-timeout", "60"]);
    assert!(started.status.success(), "{}", stderr(&started));
    let query = ["symbol", "get_collection_name"];
    let coloured = at_a_terminal(&root, &query, &[]);
    let plain = at_a_terminal(&root, &query, &[("NO_COLOR", "1")]);
    let piped_text = stdout(&piped(&root, &query));
    let status = stdout(&piped(&root, &["--json", "daemon", "status"]));
    piped(&root, &["daemon", "stop"]);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    // All three were the daemon's answers (NO_COLOR no longer refuses one).
    assert_eq!(status["requests"].as_u64(), Some(3), "{status}");
    assert!(coloured.contains(PATH_COLOUR), "{coloured:?}");
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    assert!(!piped_text.contains('\u{1b}'));
    assert_eq!(strip_sgr(&coloured).replace("\r\n", "\n"), piped_text);
}

/// `text` without SGR escapes (`ESC [ ... m`).
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("\u{1b}[") {
        out.push_str(&rest[..start]);
        let tail = &rest[start + 2..];
        let end = tail.find('m').map_or(tail.len(), |i| i + 1);
        rest = &tail[end..];
    }
    out + rest
}
