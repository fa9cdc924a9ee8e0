//! The settings of the tools around the index: `[model]` (the chat model),
//! `[embed]` (the embedding model) and `[agent]` (the limits of `ask` and
//! `chat`), read from the same two files as the index's own tables
//! ([`evident_index::Settings`]): `evident.toml` in the repository and the
//! user's `config.toml`.
//!
//! Layers, strongest first: command-line flags (applied by the caller with
//! [`ModelSettings::overlay`] and [`AgentSettings::overlay`]), the
//! repository's file, the user's file, the environment (`EVIDENT_MODEL`,
//! `EVIDENT_EMBED_MODEL`). An `api_key` is read from the user's file only (a
//! repository's file is shared). Unknown keys are refused here at the top
//! level and in these tables; evident-index checks its own. The model
//! servers' own variables (`OLLAMA_HOST`, `OPENAI_BASE_URL`,
//! `OPENAI_API_KEY`) stay with their clients in `evident-llm`.

use std::path::Path;

use evident_index::settings::{read_file, user_config_dir, CONFIG_FILE};
use evident_index::Error;
use serde::Deserialize;

type Result<T> = std::result::Result<T, Error>;

/// What one file says to the tools; the index's tables are only named, so
/// that a table no one reads is refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolsFile {
    #[serde(default)]
    model: ModelSettings,
    #[serde(default)]
    embed: ModelSettings,
    #[serde(default)]
    agent: AgentSettings,
    #[serde(default)]
    daemon: DaemonSettings,
    #[serde(rename = "index")]
    _index: Option<toml::Value>,
    #[serde(rename = "secrets")]
    _secrets: Option<toml::Value>,
    #[serde(rename = "docs")]
    _docs: Option<toml::Value>,
    #[serde(rename = "cache")]
    _cache: Option<toml::Value>,
}

/// Which kind of server (or the built-in embedder) a model is reached through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Ollama's own API (/api/chat).
    Ollama,
    /// Any OpenAI-compatible server (/v1/chat/completions).
    Openai,
    /// Embeddings only: the built-in embedder, from a local model directory.
    Local,
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Provider, String> {
        match s {
            "ollama" => Ok(Provider::Ollama),
            "openai" => Ok(Provider::Openai),
            "local" => Ok(Provider::Local),
            other => Err(format!(
                "unknown provider {other:?}; one of: ollama, openai, local"
            )),
        }
    }
}

/// `[model]` (the chat model) and `[embed]` (the embedding model).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    pub provider: Option<Provider>,
    pub name: Option<String>,
    pub base_url: Option<String>,
    /// A tool-call protocol name (`[model]` only), checked where it is used.
    pub protocol: Option<String>,
    /// Only in the user's own file: a repository's file is shared with everyone.
    pub api_key: Option<String>,
}

impl ModelSettings {
    /// `self` (the stronger layer: flags over files), gaps filled from `weaker`.
    pub fn overlay(self, weaker: ModelSettings) -> ModelSettings {
        ModelSettings {
            provider: self.provider.or(weaker.provider),
            name: self.name.or(weaker.name),
            base_url: self.base_url.or(weaker.base_url),
            protocol: self.protocol.or(weaker.protocol),
            api_key: self.api_key.or(weaker.api_key),
        }
    }
}

/// `[daemon]`: whether a query command that finds no daemon for its
/// repository starts one (`EVIDENT_DAEMON=auto` when no file says).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DaemonSettings {
    pub auto_start: Option<bool>,
    /// The idle timeout of a daemon started so.
    pub idle_timeout_s: Option<u64>,
}

impl DaemonSettings {
    pub fn overlay(self, weaker: DaemonSettings) -> DaemonSettings {
        DaemonSettings {
            auto_start: self.auto_start.or(weaker.auto_start),
            idle_timeout_s: self.idle_timeout_s.or(weaker.idle_timeout_s),
        }
    }
}

/// `[agent]`: the limits and approvals of `ask` and `chat`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    pub rounds: Option<u32>,
    pub calls_per_round: Option<usize>,
    pub timeout_s: Option<u64>,
    pub context_tokens: Option<u32>,
    /// Tools that ask before they run.
    #[serde(default)]
    pub approve: Vec<String>,
    pub prefetch: Option<bool>,
    pub all_tools: Option<bool>,
}

impl AgentSettings {
    /// `self` (the stronger layer), gaps filled from `weaker`; approvals from both.
    pub fn overlay(self, weaker: AgentSettings) -> AgentSettings {
        let mut approve = self.approve;
        for tool in weaker.approve {
            if !approve.contains(&tool) {
                approve.push(tool);
            }
        }
        AgentSettings {
            rounds: self.rounds.or(weaker.rounds),
            calls_per_round: self.calls_per_round.or(weaker.calls_per_round),
            timeout_s: self.timeout_s.or(weaker.timeout_s),
            context_tokens: self.context_tokens.or(weaker.context_tokens),
            approve,
            prefetch: self.prefetch.or(weaker.prefetch),
            all_tools: self.all_tools.or(weaker.all_tools),
        }
    }
}

/// Every setting in force (before flags): the index's and the tools', each
/// layer applied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub index: evident_index::Settings,
    pub model: ModelSettings,
    pub embed: ModelSettings,
    pub agent: AgentSettings,
    pub daemon: DaemonSettings,
}

impl Settings {
    /// The repository's file, the user's file and the process environment.
    pub fn load(root: &Path) -> Result<Settings> {
        let env = |name: &str| std::env::var(name).ok();
        Settings::load_from(root, user_config_dir().as_deref(), &env)
    }

    /// [`Settings::load`] with the user's config directory and the environment given.
    pub fn load_from(
        root: &Path,
        user_dir: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings> {
        let index = evident_index::Settings::load_from(root, user_dir)?;
        let repo = read_repository(root)?;
        let user = match user_dir {
            Some(dir) => read_file(&dir.join("config.toml"))?,
            None => ToolsFile::default(),
        };
        let from_env = |name: &str| ModelSettings {
            name: env(name).filter(|v| !v.is_empty()),
            ..ModelSettings::default()
        };
        Ok(Settings {
            index,
            model: repo
                .model
                .overlay(user.model)
                .overlay(from_env("EVIDENT_MODEL")),
            embed: repo
                .embed
                .overlay(user.embed)
                .overlay(from_env("EVIDENT_EMBED_MODEL")),
            agent: repo.agent.overlay(user.agent),
            daemon: repo.daemon.overlay(user.daemon).overlay(DaemonSettings {
                auto_start: env("EVIDENT_DAEMON").map(|v| v == "auto"),
                idle_timeout_s: None,
            }),
        })
    }
}

/// The repository's file, refusing a key, which belongs to the user alone.
fn read_repository(root: &Path) -> Result<ToolsFile> {
    let path = root.join(CONFIG_FILE);
    let repo: ToolsFile = read_file(&path)?;
    for (table, settings) in [("model", &repo.model), ("embed", &repo.embed)] {
        if settings.api_key.is_some() {
            return Err(Error::Config {
                path,
                message: format!(
                    "[{table}] api_key does not belong in a repository's config (it is shared); \
                     put it in ~/.config/evident/config.toml, OPENAI_API_KEY or --api-key"
                ),
            });
        }
    }
    Ok(repo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use evident_testkit::fs::write;

    /// Flags > repository file > user file > environment, for each field on its own.
    #[test]
    fn layers_apply_strongest_first() {
        let dir = tempfile::tempdir().unwrap();
        let (repo, user) = (dir.path().join("repo"), dir.path().join("user"));
        write(
            &repo.join(CONFIG_FILE),
            "[model]\nname = \"repo-model\"\n[agent]\nrounds = 3\napprove = [\"read_git_diff\"]\n",
        );
        write(
            &user.join("config.toml"),
            "[model]\nname = \"user-model\"\nbase_url = \"http://user\"\napi_key = \"k\"\n\
             [embed]\nprovider = \"local\"\n[agent]\nrounds = 9\ntimeout_s = 60\napprove = [\"search_code\"]\n",
        );
        let env = |name: &str| match name {
            "EVIDENT_MODEL" => Some("env-model".to_string()),
            "EVIDENT_EMBED_MODEL" => Some("env-embed".to_string()),
            _ => None,
        };
        let settings = Settings::load_from(&repo, Some(&user), &env).unwrap();
        assert_eq!(settings.model.name.as_deref(), Some("repo-model"));
        assert_eq!(settings.model.base_url.as_deref(), Some("http://user"));
        assert_eq!(settings.model.api_key.as_deref(), Some("k"));
        assert_eq!(settings.embed.provider, Some(Provider::Local));
        assert_eq!(settings.embed.name.as_deref(), Some("env-embed"));
        assert_eq!(settings.agent.rounds, Some(3));
        assert_eq!(settings.agent.timeout_s, Some(60));
        assert_eq!(settings.agent.approve, ["read_git_diff", "search_code"]);
        let flags = ModelSettings {
            name: Some("flag-model".into()),
            ..Default::default()
        };
        let chosen = flags.overlay(settings.model);
        assert_eq!(chosen.name.as_deref(), Some("flag-model"));
        assert_eq!(chosen.base_url.as_deref(), Some("http://user"));
        // Nothing in the files: the environment.
        let bare = Settings::load_from(&dir.path().join("none"), None, &env).unwrap();
        assert_eq!(bare.model.name.as_deref(), Some("env-model"));
    }

    #[test]
    fn a_typo_in_any_table_of_either_file_is_an_error_naming_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        for (file, text, key) in [
            (CONFIG_FILE, "[indx]\nmax_file_size = 10\n", "indx"),
            (CONFIG_FILE, "[model]\nnmae = \"m\"\n", "nmae"),
            (CONFIG_FILE, "[agent]\nround = 3\n", "round"),
            (CONFIG_FILE, "[embed]\nprovider = \"olama\"\n", "olama"),
            ("user/config.toml", "[modle]\nname = \"m\"\n", "modle"),
            (
                "user/config.toml",
                "[agent]\nprefetch = \"yes\"\n",
                "prefetch",
            ),
        ] {
            let root = dir.path().join(key);
            write(&root.join(file), text);
            let error = Settings::load_from(&root, Some(&root.join("user")), &none).unwrap_err();
            assert!(
                matches!(&error, Error::Config { message, .. } if message.contains(key)),
                "{file} {text:?}: {error}"
            );
            assert!(error.to_string().contains(key), "{error}");
        }
    }

    #[test]
    fn a_key_stays_in_the_users_file() {
        let dir = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        write(
            &dir.path().join(CONFIG_FILE),
            "[model]\napi_key = \"shared\"\n",
        );
        let error = Settings::load_from(dir.path(), None, &none).unwrap_err();
        assert!(
            error.to_string().contains("api_key does not belong"),
            "{error}"
        );
    }
}
