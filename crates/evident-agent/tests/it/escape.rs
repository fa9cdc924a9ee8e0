//! The escape and leak corpus (`tests/escape_corpus.json`, shared with the MCP
//! server's test): hostile tool calls against a repository built to be
//! attacked. Each must be refused, by the validator or by the tool, with a
//! message that says why, and no output may ever contain a forbidden file's text.

use evident_agent::session::render_output;
use evident_agent::{Registry, ToolContext};
use evident_index::{Config, IndexOptions};
use evident_llm::ToolCall;
use evident_testkit::hostile_repo::{escape_corpus as corpus, hostile_repo, CANARY};
use serde_json::Value;

#[test]
fn every_hostile_call_is_refused_and_nothing_leaks() {
    let hostile = hostile_repo();
    let summary = evident_index::index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    // Nothing forbidden made it into the index either.
    let index = evident_index::Index::open(&hostile.repo).unwrap();
    let found = index
        .search(&evident_index::SearchQuery::new(CANARY))
        .unwrap();
    assert!(
        found.is_empty(),
        "the index holds forbidden text: {found:?}"
    );
    assert!(summary
        .skipped
        .iter()
        .any(|s| s.rel == "hard.py" && s.reason.contains("hard link")));

    let registry = Registry::read_only(&[]).unwrap();
    let config = Config::load(&hostile.repo).unwrap();
    let context = ToolContext::plain(hostile.repo.clone());
    let cases = corpus();
    assert!(cases.len() >= 60, "the corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let raw = hostile.expand(&case.arguments);
        let call = ToolCall {
            index: 0,
            id: None,
            name: case.tool.clone(),
            arguments: serde_json::from_str(&raw).unwrap_or(Value::Null),
            arguments_raw: raw.clone(),
        };
        let message = match registry.validate(&call, &hostile.repo, &config) {
            Err(why) => why.to_string(),
            Ok(valid) => match valid.tool.run(&context, &valid.arguments) {
                Err(why) => why.to_string(),
                Ok(output) => {
                    failures.push(format!(
                        "{} ({}): ran: {}",
                        case.why,
                        raw,
                        render_output(&output)
                    ));
                    continue;
                }
            },
        };
        assert!(!message.contains(CANARY), "{}: leaked: {message}", case.why);
        if !message.contains(&case.refused_with) {
            failures.push(format!(
                "{} ({} {raw}): expected {:?} in: {message}",
                case.why, case.tool, case.refused_with
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ten_thousand_arguments_get_a_short_refusal() {
    let hostile = hostile_repo();
    evident_index::index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let registry = Registry::read_only(&[]).unwrap();
    let config = Config::load(&hostile.repo).unwrap();
    let mut arguments = serde_json::Map::new();
    arguments.insert("name".into(), Value::from("main"));
    for i in 0..10_000 {
        arguments.insert(format!("k{i}"), Value::from(i));
    }
    let raw = Value::Object(arguments).to_string();
    let call = ToolCall {
        index: 0,
        id: None,
        name: "find_symbol".into(),
        arguments: serde_json::from_str(&raw).unwrap(),
        arguments_raw: raw,
    };
    let started = std::time::Instant::now();
    let Err(message) = registry.validate(&call, &hostile.repo, &config) else {
        panic!("10,000 unknown keys were accepted");
    };
    let message = message.to_string();
    assert!(
        message.contains("Additional properties are not allowed"),
        "{message}"
    );
    assert!(message.len() < 2_000, "{} bytes", message.len());
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// Found by fuzzing: `read_git_diff` showed untracked files the sandbox
/// refuses (a hard link to a file outside, a symlink to `.env`), and would show
/// a committed secret's changes.
#[test]
fn the_diff_tool_keeps_to_the_read_rules() {
    let hostile = hostile_repo();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(&hostile.repo)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    // A secret committed by mistake, then changed: the diff must not show it.
    git(&["add", "-f", ".env", "app.py"]);
    git(&["commit", "-q", "-m", "oops"]);
    std::fs::write(hostile.repo.join(".env"), format!("TOKEN={CANARY}-new\n")).unwrap();
    std::fs::write(
        hostile.repo.join("app.py"),
        "import util\n\n\ndef main():\n    return util.helper(2)\n",
    )
    .unwrap();
    evident_index::index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let registry = Registry::read_only(&[]).unwrap();
    let tool = registry.get("read_git_diff").unwrap();
    let context = ToolContext::plain(hostile.repo.clone());
    let output = tool.run(&context, &serde_json::Map::new()).unwrap();
    let text = render_output(&output);
    assert!(!text.contains(CANARY), "{text}");
    let paths: Vec<&str> = output.evidence.iter().map(|e| e.path.as_str()).collect();
    assert!(
        paths.contains(&"app.py") && paths.contains(&"util.py"),
        "{paths:?}"
    );
    for refused in [
        ".env",
        "hard.py",
        "env_link.py",
        "blob.py",
        "broken.py",
        "big.py",
    ] {
        assert!(!paths.contains(&refused), "{refused} in {paths:?}");
    }
}
