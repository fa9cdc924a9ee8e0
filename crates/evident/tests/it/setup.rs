//! `evident setup CLIENT` on each client's documented configuration
//! (`tests/setup-examples/`, sources in its SOURCES.md): the entry has the
//! fields the documented examples' servers have, every other server,
//! setting and comment stays, a second run changes nothing, a backup keeps
//! the file as it was, `--dry-run` writes nothing, a file that does not
//! parse is refused untouched, and the entry written starts a working MCP
//! server for the repository.

use std::path::{Path, PathBuf};
use std::process::Output;

use evident_testkit::cli::{self, stderr, stdout};
use evident_testkit::git::git;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_evident");

/// Where a client reads its file: in the repository or under HOME.
enum At {
    Repo(&'static str),
    Home(&'static str),
}

struct Case {
    client: &'static str,
    example: &'static str,
    at: At,
    servers_key: &'static [&'static str],
    /// The server's name evident gives it.
    name: &'static str,
    /// The entry the client's docs write for a stdio server running `command`.
    entry: fn(&[String]) -> Value,
}

fn command_args(command: &[String]) -> Value {
    json!({"command": command[0], "args": command[1..]})
}

const CASES: &[Case] = &[
    Case {
        client: "claude-code",
        example: "claude-code.json",
        at: At::Repo(".mcp.json"),
        servers_key: &["mcpServers"],
        name: "evident",
        entry: |c| json!({"type": "stdio", "command": c[0], "args": c[1..], "env": {}}),
    },
    Case {
        client: "cursor",
        example: "cursor.json",
        at: At::Repo(".cursor/mcp.json"),
        servers_key: &["mcpServers"],
        name: "evident",
        entry: |c| json!({"command": c[0], "args": c[1..], "env": {}}),
    },
    Case {
        client: "vscode",
        example: "vscode.jsonc",
        at: At::Repo(".vscode/mcp.json"),
        servers_key: &["servers"],
        name: "evident",
        entry: |c| json!({"type": "stdio", "command": c[0], "args": c[1..]}),
    },
    Case {
        client: "zed",
        example: "zed.jsonc",
        at: At::Repo(".zed/settings.json"),
        servers_key: &["context_servers"],
        name: "evident",
        entry: |c| json!({"command": c[0], "args": c[1..], "env": {}}),
    },
    Case {
        client: "codex",
        example: "codex.toml",
        at: At::Home(".codex/config.toml"),
        servers_key: &["mcp_servers"],
        name: "evident-repo",
        entry: command_args,
    },
    Case {
        client: "continue",
        example: "continue.json",
        at: At::Repo(".continue/mcpServers/evident.json"),
        servers_key: &["mcpServers"],
        name: "evident",
        entry: command_args,
    },
    Case {
        client: "windsurf",
        example: "windsurf.json",
        at: At::Home(".codeium/windsurf/mcp_config.json"),
        servers_key: &["mcpServers"],
        name: "evident-repo",
        entry: command_args,
    },
    Case {
        client: "gemini",
        example: "gemini.jsonc",
        at: At::Repo(".gemini/settings.json"),
        servers_key: &["mcpServers"],
        name: "evident",
        entry: command_args,
    },
    Case {
        client: "opencode",
        example: "opencode.jsonc",
        at: At::Repo("opencode.jsonc"),
        servers_key: &["mcp"],
        name: "evident",
        entry: |c| json!({"type": "local", "command": c, "enabled": true}),
    },
];

fn example(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/setup-examples");
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// The file's data, read by a parser of its format (not evident's).
fn parse(path: &Path, text: &str) -> Value {
    match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => serde_json::to_value(toml::from_str::<toml::Table>(text).unwrap()).unwrap(),
        _ => {
            let options = jsonc_parser::ParseOptions::default();
            jsonc_parser::parse_to_serde_value::<Value>(text, &options).unwrap()
        }
    }
}

fn servers<'a>(data: &'a Value, key: &[&str]) -> &'a serde_json::Map<String, Value> {
    key.iter()
        .fold(data, |v, k| &v[*k])
        .as_object()
        .expect("a table of servers")
}

/// A git repository named `repo` and a HOME beside it.
fn repo_and_home() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(root.join("tool.py"), "def lookup(key):\n    return key\n").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    let (root, home) = (root.canonicalize().unwrap(), home.canonicalize().unwrap());
    (tmp, root, home)
}

fn setup(root: &Path, home: &Path, args: &[&str]) -> Output {
    cli::hermetic(BIN)
        .arg("setup")
        .args(args)
        .current_dir(root)
        .env("HOME", home)
        .output()
        .unwrap()
}

fn the_file(case: &Case, root: &Path, home: &Path) -> PathBuf {
    match case.at {
        At::Repo(relative) => root.join(relative),
        At::Home(relative) => home.join(relative),
    }
}

fn comment_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("//") || l.starts_with('#') || l.contains("# "))
        .collect()
}

#[test]
fn each_client_s_documented_file_gets_the_entry_and_keeps_the_rest() {
    for case in CASES {
        let (_tmp, root, home) = repo_and_home();
        let file = the_file(case, &root, &home);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let original = example(case.example);
        std::fs::write(&file, &original).unwrap();
        let exe = Path::new(BIN).canonicalize().unwrap();
        let command: Vec<String> = [
            exe.to_str().unwrap(),
            "--repo",
            root.to_str().unwrap(),
            "mcp",
        ]
        .map(String::from)
        .to_vec();
        let who = case.client;

        // --dry-run: the diff, and nothing written.
        let dry = setup(&root, &home, &[who, "--dry-run"]);
        assert!(dry.status.success(), "{who}: {}", stderr(&dry));
        let diff = stdout(&dry);
        let added = diff
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"));
        assert!(
            added.clone().any(|l| l.contains(exe.to_str().unwrap())),
            "{who}: {diff}"
        );
        assert!(
            !diff
                .lines()
                .any(|l| l.starts_with('-') && !l.starts_with("---")),
            "{who}: {diff}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), original, "{who}");

        let out = setup(&root, &home, &[who]);
        assert!(out.status.success(), "{who}: {}", stderr(&out));
        let written = std::fs::read_to_string(&file).unwrap();
        let (before, after) = (parse(&file, &original), parse(&file, &written));
        let ours = &servers(&after, case.servers_key)[case.name];
        assert_eq!(ours, &(case.entry)(&command), "{who}: {written}");
        // Fields the documented servers use, nothing of our own invention.
        let documented: Vec<&String> = servers(&before, case.servers_key)
            .values()
            .flat_map(|s| s.as_object().unwrap().keys())
            .collect();
        for field in ours.as_object().unwrap().keys() {
            assert!(
                documented.contains(&field),
                "{who}: {field} is in no documented server"
            );
        }
        // Every other server and setting exactly as it was; comments kept.
        let mut without_ours = after.clone();
        let mut table = &mut without_ours;
        for key in case.servers_key {
            table = &mut table[*key];
        }
        table.as_object_mut().unwrap().remove(case.name);
        assert_eq!(without_ours, before, "{who}");
        for comment in comment_lines(&original) {
            assert!(
                written.contains(comment),
                "{who}: lost {comment:?}:\n{written}"
            );
        }
        let backup = file.with_file_name(format!(
            "{}.bak",
            file.file_name().unwrap().to_str().unwrap()
        ));
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), original, "{who}");

        // A second run changes nothing and makes no second backup.
        let again = setup(&root, &home, &[who]);
        assert!(again.status.success(), "{who}: {}", stderr(&again));
        assert!(
            stdout(&again).contains("already set up"),
            "{who}: {}",
            stdout(&again)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), written, "{who}");
        assert!(
            !Path::new(&format!("{}.1", backup.display())).exists(),
            "{who}"
        );
    }
}

#[test]
fn a_file_that_does_not_parse_is_refused_and_left_as_it_was() {
    // Plain JSON has no trailing comma and no comment.
    let broken: &[(&str, &str, &str)] = &[
        (
            "claude-code",
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"},}}\n",
            "does not parse",
        ),
        (
            "cursor",
            "{\"mcpServers\": {\n  // no comments in JSON\n}}\n",
            "does not parse",
        ),
        ("vscode", "{\"servers\": {\"a\": }\n", "does not parse"),
        (
            "codex",
            "[mcp_servers.a\ncommand = \"x\"\n",
            "does not parse",
        ),
        (
            "opencode",
            "{\"mcp\": [\"not\", \"a\", \"table\"]}\n",
            "holds no table of servers",
        ),
        ("windsurf", "[1]\n", "holds no object of settings"),
    ];
    for (client, text, why) in broken {
        let case = CASES.iter().find(|c| c.client == *client).unwrap();
        let (_tmp, root, home) = repo_and_home();
        let mut file = the_file(case, &root, &home);
        if case.client == "opencode" {
            file = root.join("opencode.json");
        }
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let listing = |dir: &Path| {
            let mut names: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        let before = listing(file.parent().unwrap());
        let out = setup(&root, &home, &[client]);
        assert_eq!(out.status.code(), Some(2), "{client}: {}", stdout(&out));
        let message = stderr(&out);
        assert!(
            message.contains(&file.display().to_string()) && message.contains("nothing changed"),
            "{client}: {message}"
        );
        assert!(message.contains(why), "{client}: {message}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), *text, "{client}");
        let after = listing(file.parent().unwrap());
        assert_eq!(
            after, before,
            "{client}: a backup or a temporary file was left"
        );
    }
}

#[test]
fn the_list_says_where_each_client_s_file_is_and_whether_it_is_set_up() {
    let (_tmp, root, home) = repo_and_home();
    assert!(setup(&root, &home, &["cursor"]).status.success());
    let out = cli::hermetic(BIN)
        .args(["--json", "setup", "--list"])
        .current_dir(&root)
        .env("HOME", &home)
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["client"].as_str().unwrap()).collect();
    assert_eq!(ids, CASES.iter().map(|c| c.client).collect::<Vec<_>>());
    let row = |id: &str| rows.iter().find(|r| r["client"] == id).unwrap().clone();
    assert_eq!(row("cursor")["state"], "set up");
    assert_eq!(
        row("cursor")["file"],
        root.join(".cursor/mcp.json").to_str().unwrap()
    );
    assert!(row("codex")["state"]
        .as_str()
        .unwrap()
        .starts_with("not set up"));
    assert_eq!(
        row("codex")["file"],
        home.join(".codex/config.toml").to_str().unwrap()
    );

    let unknown = setup(&root, &home, &["notepad"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown client \"notepad\"; one of: claude-code, cursor"),
        "{}",
        stderr(&unknown)
    );
}

#[tokio::test]
async fn the_entry_written_starts_a_server_for_the_repository() {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let (_tmp, root, home) = repo_and_home();
    assert!(cli::run(BIN, &root, &["index", "--quiet"]).status.success());
    assert!(setup(&root, &home, &["claude-code"]).status.success());
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(".mcp.json")).unwrap()).unwrap();
    let server = &config["mcpServers"]["evident"];
    // As a client starts it: the command and arguments, from elsewhere.
    let mut command =
        tokio::process::Command::from(cli::hermetic(server["command"].as_str().unwrap()));
    command.args(
        server["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap()),
    );
    command.current_dir(&home);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let session = ().serve(transport).await.expect("initialize succeeds");
    let arguments = json!({"name": "lookup"}).as_object().cloned().unwrap();
    let params = CallToolRequestParams::new("find_symbol").with_arguments(arguments);
    let found = session.call_tool(params).await.unwrap();
    let text = format!("{:?}", found.content);
    assert!(text.contains("tool.py"), "{text}");
    session.cancel().await.unwrap();
}
