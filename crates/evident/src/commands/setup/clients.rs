//! The agent clients `evident setup` configures: where each keeps its MCP
//! servers, in which format, and the shape of one server's entry, each as
//! its own documentation gives it (the URL in `docs`). Adding a client is
//! adding a row.

use std::path::{Path, PathBuf};

/// Where a client's configuration file is.
pub enum Place {
    /// Relative to the repository (a project or workspace file).
    Project(&'static str),
    /// The user's own file: `(variable, under it)` when the variable is set
    /// (`CODEX_HOME`), else `under_home` below `$HOME`.
    User {
        variable: Option<(&'static str, &'static str)>,
        under_home: &'static str,
    },
}

/// How the file is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Plain JSON: the client's parser takes no comments.
    Json,
    /// JSON with comments and trailing commas (VS Code, Zed, OpenCode, Gemini).
    Jsonc,
    Toml,
}

/// The shape of one server's entry.
#[derive(Clone, Copy)]
pub enum Entry {
    /// `{"command": EXE, "args": [...]}`, with `"type": "stdio"` first when
    /// the client writes one, and `"env": {}` last when its docs do.
    CommandArgs { stdio_type: bool, env: bool },
    /// OpenCode's: `{"type": "local", "command": [EXE, ...], "enabled": true}`.
    CommandList,
}

pub struct Client {
    /// What `evident setup` takes (`claude-code`).
    pub id: &'static str,
    pub aliases: &'static [&'static str],
    pub title: &'static str,
    pub place: Place,
    pub format: Format,
    /// The keys from the top of the file to the table of servers.
    pub servers_key: &'static [&'static str],
    pub entry: Entry,
    /// Top-level fields a new file starts with (OpenCode's `$schema`).
    pub new_file: &'static [(&'static str, &'static str)],
    /// The client's own command for this, `{name}` and `{command}` filled in.
    pub cli: Option<&'static str>,
    pub docs: &'static str,
}

pub const CLIENTS: &[Client] = &[
    Client {
        id: "claude-code",
        aliases: &["claude"],
        title: "Claude Code",
        place: Place::Project(".mcp.json"),
        format: Format::Json,
        servers_key: &["mcpServers"],
        entry: Entry::CommandArgs {
            stdio_type: true,
            env: true,
        },
        new_file: &[],
        cli: Some("claude mcp add --scope project {name} -- {command}"),
        docs: "https://docs.anthropic.com/en/docs/claude-code/mcp",
    },
    Client {
        id: "cursor",
        aliases: &[],
        title: "Cursor",
        place: Place::Project(".cursor/mcp.json"),
        format: Format::Json,
        servers_key: &["mcpServers"],
        entry: Entry::CommandArgs {
            stdio_type: false,
            env: true,
        },
        new_file: &[],
        cli: None,
        docs: "https://docs.cursor.com/context/model-context-protocol",
    },
    Client {
        id: "vscode",
        aliases: &["code", "vs-code"],
        title: "VS Code",
        place: Place::Project(".vscode/mcp.json"),
        format: Format::Jsonc,
        servers_key: &["servers"],
        entry: Entry::CommandArgs {
            stdio_type: true,
            env: false,
        },
        new_file: &[],
        cli: None,
        docs: "https://code.visualstudio.com/docs/copilot/customization/mcp-servers",
    },
    Client {
        id: "zed",
        aliases: &[],
        title: "Zed",
        place: Place::Project(".zed/settings.json"),
        format: Format::Jsonc,
        servers_key: &["context_servers"],
        entry: Entry::CommandArgs {
            stdio_type: false,
            env: true,
        },
        new_file: &[],
        cli: None,
        docs: "https://zed.dev/docs/ai/mcp",
    },
    Client {
        id: "codex",
        aliases: &["codex-cli"],
        title: "Codex CLI",
        place: Place::User {
            variable: Some(("CODEX_HOME", "config.toml")),
            under_home: ".codex/config.toml",
        },
        format: Format::Toml,
        servers_key: &["mcp_servers"],
        entry: Entry::CommandArgs {
            stdio_type: false,
            env: false,
        },
        new_file: &[],
        cli: Some("codex mcp add {name} -- {command}"),
        docs: "https://github.com/openai/codex/blob/main/docs/config.md#mcp_servers",
    },
    Client {
        id: "continue",
        aliases: &[],
        title: "Continue",
        place: Place::Project(".continue/mcpServers/evident.json"),
        format: Format::Json,
        servers_key: &["mcpServers"],
        entry: Entry::CommandArgs {
            stdio_type: false,
            env: false,
        },
        new_file: &[],
        cli: None,
        docs: "https://docs.continue.dev/customize/deep-dives/mcp",
    },
    Client {
        id: "windsurf",
        aliases: &[],
        title: "Windsurf",
        place: Place::User {
            variable: None,
            under_home: ".codeium/windsurf/mcp_config.json",
        },
        format: Format::Json,
        servers_key: &["mcpServers"],
        entry: Entry::CommandArgs {
            stdio_type: false,
            env: false,
        },
        new_file: &[],
        cli: None,
        docs: "https://docs.windsurf.com/windsurf/cascade/mcp",
    },
    Client {
        id: "gemini",
        aliases: &["gemini-cli"],
        title: "Gemini CLI",
        place: Place::Project(".gemini/settings.json"),
        format: Format::Jsonc,
        servers_key: &["mcpServers"],
        entry: Entry::CommandArgs {
            stdio_type: false,
            env: false,
        },
        new_file: &[],
        cli: None,
        docs: "https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md",
    },
    Client {
        id: "opencode",
        aliases: &[],
        title: "OpenCode",
        place: Place::Project("opencode.json"),
        format: Format::Jsonc,
        servers_key: &["mcp"],
        entry: Entry::CommandList,
        new_file: &[("$schema", "https://opencode.ai/config.json")],
        cli: None,
        docs: "https://opencode.ai/docs/mcp-servers/",
    },
];

/// The client `name` names (its id or an alias, any case).
pub fn find(name: &str) -> Option<&'static Client> {
    let name = name.to_ascii_lowercase();
    CLIENTS
        .iter()
        .find(|c| c.id == name || c.aliases.contains(&name.as_str()))
}

impl Client {
    /// The configuration file for `repo`; `None` when it is the user's and
    /// HOME is not set.
    pub fn file(&self, repo: &Path) -> Option<PathBuf> {
        let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        match &self.place {
            Place::Project(relative) => {
                // OpenCode reads `opencode.jsonc` as well: edit the one there is.
                let jsonc = repo.join(format!("{relative}c"));
                let edits_jsonc = self.format == Format::Jsonc && jsonc.is_file();
                Some(if edits_jsonc {
                    jsonc
                } else {
                    repo.join(relative)
                })
            }
            Place::User {
                variable,
                under_home,
            } => match variable.and_then(|(var, under)| Some(PathBuf::from(set(var)?).join(under)))
            {
                Some(path) => Some(path),
                None => Some(PathBuf::from(set("HOME")?).join(under_home)),
            },
        }
    }

    /// Whether one file serves every repository (the server's name then
    /// says which repository it is for).
    pub fn is_users(&self) -> bool {
        matches!(self.place, Place::User { .. })
    }

    /// The entry for a server that runs `command` (the program, then its
    /// arguments), its fields in the order the client's docs write them.
    pub fn entry_for(&self, command: &[String]) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::json;
        match self.entry {
            Entry::CommandArgs { stdio_type, env } => {
                let mut fields = Vec::new();
                if stdio_type {
                    fields.push(("type", json!("stdio")));
                }
                fields.push(("command", json!(command[0])));
                fields.push(("args", json!(command[1..])));
                if env {
                    fields.push(("env", json!({})));
                }
                fields
            }
            Entry::CommandList => vec![
                ("type", json!("local")),
                ("command", json!(command)),
                ("enabled", json!(true)),
            ],
        }
    }
}
