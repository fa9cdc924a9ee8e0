//! Settings: the index's reading of `evident.toml` (in the repository root)
//! and of the user's `~/.config/evident/config.toml`
//! (`$XDG_CONFIG_HOME/evident/`).
//!
//! The index owns `[index]`, `[secrets]` and `[docs]`, which describe a
//! repository and are read from its file only, and `[cache]`, the user's
//! disk, read from the user's file only. Unknown keys in those tables are
//! refused, so a typo is an error naming the key. The files' other tables
//! (the models and the agent) belong to the tools around the index, which
//! read and check them themselves; this crate knows nothing of models.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// The configuration file, in the repository root.
pub const CONFIG_FILE: &str = "evident.toml";

/// What one file says to the index.
#[derive(Debug, Default, Deserialize)]
struct SettingsFile {
    #[serde(default)]
    index: IndexSettings,
    #[serde(default)]
    secrets: SecretsSettings,
    #[serde(default)]
    docs: DocsSettings,
    #[serde(default)]
    cache: CacheSettings,
    /// The tables the tools around the index read, and check, themselves.
    #[serde(flatten)]
    _theirs: toml::Table,
}

/// `[index]`: what is indexed.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexSettings {
    pub max_file_size: Option<u64>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `[secrets]`: glob patterns treated as secret, on top of the defaults.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretsSettings {
    #[serde(default)]
    pub extra: Vec<String>,
}

/// `[docs]`: knowledge directories outside the repository (relative to it, absolute, or `~/…`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocsSettings {
    #[serde(default)]
    pub dirs: Vec<String>,
}

/// `[cache]`: the per-user parse cache (the user's file only: it is the
/// user's disk). `max_mib = 0` turns it off.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSettings {
    pub max_mib: Option<u64>,
}

/// Every setting in force (before flags), each layer applied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub index: IndexSettings,
    pub secrets: SecretsSettings,
    pub docs: DocsSettings,
    pub cache: CacheSettings,
}

impl Settings {
    /// The repository's file and the user's file.
    pub fn load(root: &Path) -> Result<Settings> {
        Settings::load_from(root, user_config_dir().as_deref())
    }

    /// [`Settings::load`] with the user's config directory given.
    pub fn load_from(root: &Path, user_dir: Option<&Path>) -> Result<Settings> {
        let repo = read_repository(root)?;
        let user = match user_dir {
            Some(dir) => read_user(&dir.join("config.toml"))?,
            None => SettingsFile::default(),
        };
        Ok(Settings {
            index: repo.index,
            secrets: repo.secrets,
            docs: repo.docs,
            cache: user.cache,
        })
    }

    /// The repository's file alone: what the index needs (`[index]`,
    /// `[secrets]`, `[docs]`).
    pub fn repository(root: &Path) -> Result<Settings> {
        let repo = read_repository(root)?;
        Ok(Settings {
            index: repo.index,
            secrets: repo.secrets,
            docs: repo.docs,
            cache: CacheSettings::default(),
        })
    }
}

/// `$XDG_CONFIG_HOME/evident`, else `~/.config/evident`: the user's config and skills.
pub fn user_config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(base.join("evident"))
}

/// The repository's file, refusing what belongs to the user alone.
fn read_repository(root: &Path) -> Result<SettingsFile> {
    let path = root.join(CONFIG_FILE);
    let repo: SettingsFile = read_file(&path)?;
    if repo.cache != CacheSettings::default() {
        return Err(Error::Config {
            path,
            message:
                "[cache] is about the user's own disk: put it in ~/.config/evident/config.toml"
                    .into(),
        });
    }
    Ok(repo)
}

/// One settings file read as `T` (the index's tables, or the tools'); a
/// missing file says nothing, a bad one is an error naming the file.
pub fn read_file<T: serde::de::DeserializeOwned + Default>(path: &Path) -> Result<T> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
        Err(e) => return Err(Error::io(path.to_path_buf(), e)),
    };
    toml::from_str(&text).map_err(|e| Error::Config {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The user's file: the repository-only tables are refused there, by name.
fn read_user(path: &Path) -> Result<SettingsFile> {
    let file: SettingsFile = read_file(path)?;
    let repository_only = [
        ("index", file.index != IndexSettings::default()),
        ("secrets", file.secrets != SecretsSettings::default()),
        ("docs", file.docs != DocsSettings::default()),
    ];
    if let Some((table, _)) = repository_only.iter().find(|(_, set)| *set) {
        return Err(Error::Config {
            path: path.to_path_buf(),
            message: format!(
                "[{table}] describes a repository: put it in that repository's evident.toml"
            ),
        });
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use evident_testkit::fs::write;

    #[test]
    fn a_typo_in_the_index_tables_is_an_error_naming_the_key() {
        let dir = tempfile::tempdir().unwrap();
        for (file, text, key) in [
            (
                CONFIG_FILE,
                "[index]\nmax_file_sise = 10\n",
                "max_file_sise",
            ),
            (CONFIG_FILE, "[docs]\ndir = [\"d\"]\n", "dir"),
            ("user/config.toml", "[cache]\nmax_mb = 1\n", "max_mb"),
        ] {
            let root = dir.path().join(key);
            write(&root.join(file), text);
            let error = Settings::load_from(&root, Some(&root.join("user"))).unwrap_err();
            assert!(
                matches!(&error, Error::Config { message, .. } if message.contains(key)),
                "{file} {text:?}: {error}"
            );
        }
        // The tools' tables are theirs to check.
        let root = dir.path().join("theirs");
        write(
            &root.join(CONFIG_FILE),
            "[model]\nname = \"m\"\n[agent]\nrounds = 3\n",
        );
        assert!(Settings::load_from(&root, None).is_ok());
    }

    #[test]
    fn repository_tables_stay_in_the_repository() {
        let user = tempfile::tempdir().unwrap();
        write(
            &user.path().join("config.toml"),
            "[secrets]\nextra = [\"*.x\"]\n",
        );
        let error = Settings::load_from(user.path(), Some(user.path())).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("[secrets] describes a repository"),
            "{error}"
        );
    }

    /// `[cache]` is read from the user's file; a repository's may not move
    /// or size the user's disk.
    #[test]
    fn the_parse_cache_is_the_users_setting() {
        let (repo, user) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write(
            &user.path().join("config.toml"),
            "[cache]
max_mib = 0
",
        );
        let settings = Settings::load_from(repo.path(), Some(user.path())).unwrap();
        assert_eq!(settings.cache.max_mib, Some(0));
        assert_eq!(
            crate::ParseCacheSettings::for_user(settings.cache.max_mib),
            None,
            "0 turns it off"
        );
        write(
            &repo.path().join(CONFIG_FILE),
            "[cache]
max_mib = 10
",
        );
        for error in [
            Settings::load_from(repo.path(), Some(user.path())).unwrap_err(),
            Settings::repository(repo.path()).unwrap_err(),
        ] {
            assert!(
                error
                    .to_string()
                    .contains("[cache] is about the user's own disk"),
                "{error}"
            );
        }
    }
}
