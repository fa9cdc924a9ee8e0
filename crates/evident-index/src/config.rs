//! Index configuration: defaults, then `evident.toml` in the repository root.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::error::{Error, Result};

/// Files larger than this are skipped (and reported) unless configured otherwise.
/// The configuration file, in the repository root.
pub const CONFIG_FILE: &str = "evident.toml";

pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// Paths that are never read or indexed, whatever the configuration adds:
/// credentials, keys, environment files, git internals and evident's own index.
pub const DEFAULT_SECRET_PATTERNS: &[&str] = &[
    "**/.env",
    "**/.env.*",
    "**/*.env",
    "**/*.pem",
    "**/*.key",
    "**/*.p12",
    "**/*.pfx",
    "**/*.jks",
    "**/*.keystore",
    "**/id_rsa*",
    "**/id_dsa*",
    "**/id_ecdsa*",
    "**/id_ed25519*",
    "**/.ssh/**",
    "**/.git/**",
    "**/.git",
    "**/.evident/**",
    "**/.netrc",
    "**/.pgpass",
    "**/.npmrc",
    "**/.pypirc",
    "**/.git-credentials",
    "**/.aws/**",
    "**/.azure/**",
    "**/.config/gcloud/**",
    "**/gcloud/**",
    "**/application_default_credentials.json",
    "**/*service-account*.json",
    "**/*service_account*.json",
    "**/.vault-token",
    "**/*.ovpn",
    "**/.docker/config.json",
    "**/.kube/config",
    "**/credentials.json",
    "**/credentials",
    "**/*.tfstate",
    "**/*.tfvars",
    "**/secrets.yml",
    "**/secrets.yaml",
];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    #[serde(default)]
    index: IndexSection,
    #[serde(default)]
    secrets: SecretsSection,
    #[serde(default)]
    docs: DocsSection,
    // Read by the CLI (model servers); named here so that a typo elsewhere is still an error.
    #[serde(default, rename = "model")]
    _model: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "embed")]
    _embed: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "agent")]
    _agent: Option<serde::de::IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexSection {
    max_file_size: Option<u64>,
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocsSection {
    /// Knowledge directories outside the repository (relative to it, absolute, or `~/…`).
    #[serde(default)]
    dirs: Vec<String>,
}

/// A knowledge directory outside the repository, indexed read-only: its
/// documents appear under `@NAME/` (NAME: the directory's own name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocsDir {
    /// `@` and the directory's name (made unique with `-2`, `-3`, …).
    pub mount: String,
    /// Canonical.
    pub path: PathBuf,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SecretsSection {
    /// Extra glob patterns treated as secret, on top of the defaults.
    #[serde(default)]
    extra: Vec<String>,
}

/// What may be indexed and read.
#[derive(Debug, Clone)]
pub struct Config {
    pub max_file_size: u64,
    /// Extra globs (relative to the root) to leave out of the index.
    pub exclude: Vec<String>,
    pub secrets: SecretPolicy,
    /// `[docs] dirs`: documents outside the repository.
    pub docs_dirs: Vec<DocsDir>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            exclude: Vec::new(),
            secrets: SecretPolicy::new(&[]).expect("default patterns are valid"),
            docs_dirs: Vec::new(),
        }
    }
}

impl Config {
    /// Defaults overlaid with `<root>/evident.toml` when it exists.
    pub fn load(root: &Path) -> Result<Config> {
        let path = root.join(CONFIG_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(Error::io(path, e)),
        };
        let parsed: FileConfig = toml::from_str(&text).map_err(|e| Error::Config {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let secrets =
            SecretPolicy::new(&parsed.secrets.extra).map_err(|message| Error::Config {
                path: path.clone(),
                message,
            })?;
        for pattern in &parsed.index.exclude {
            Glob::new(pattern).map_err(|e| Error::Config {
                path: path.clone(),
                message: format!("index.exclude: {e}"),
            })?;
        }
        let docs_dirs = docs_dirs(root, &parsed.docs.dirs).map_err(|message| Error::Config {
            path: path.clone(),
            message: format!("docs.dirs: {message}"),
        })?;
        Ok(Config {
            max_file_size: parsed.index.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE),
            exclude: parsed.index.exclude,
            secrets,
            docs_dirs,
        })
    }
}

/// Resolves and names `[docs] dirs`: each must be an existing directory
/// outside the repository (inside, its documents are indexed already).
fn docs_dirs(root: &Path, dirs: &[String]) -> std::result::Result<Vec<DocsDir>, String> {
    let canonical_root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let mut out: Vec<DocsDir> = Vec::new();
    for dir in dirs {
        let expanded = match dir.strip_prefix("~/") {
            Some(rest) => {
                Path::new(&std::env::var_os("HOME").ok_or("~ needs HOME to be set")?).join(rest)
            }
            None => root.join(dir),
        };
        let path = expanded
            .canonicalize()
            .map_err(|e| format!("{dir:?}: {e}"))?;
        if !path.is_dir() {
            return Err(format!("{dir:?} is not a directory"));
        }
        if path.starts_with(&canonical_root) {
            return Err(format!(
                "{dir:?} is inside the repository, whose documents are indexed anyway"
            ));
        }
        if out.iter().any(|d| d.path == path) {
            continue;
        }
        let base = path
            .file_name()
            .map_or_else(|| "docs".to_string(), |n| n.to_string_lossy().into_owned());
        let mut mount = format!("@{base}");
        let mut n = 2;
        while out.iter().any(|d| d.mount == mount) || canonical_root.join(&mount).exists() {
            mount = format!("@{base}-{n}");
            n += 1;
        }
        out.push(DocsDir { mount, path });
    }
    Ok(out)
}

/// Decides which relative paths are secret and must never be read.
#[derive(Debug, Clone)]
pub struct SecretPolicy {
    set: GlobSet,
}

impl SecretPolicy {
    /// The default patterns plus `extra`.
    pub fn new(extra: &[String]) -> std::result::Result<SecretPolicy, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in DEFAULT_SECRET_PATTERNS
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
        {
            let glob = globset::GlobBuilder::new(pattern)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("secret pattern {pattern:?}: {e}"))?;
            builder.add(glob);
        }
        let set = builder.build().map_err(|e| e.to_string())?;
        Ok(SecretPolicy { set })
    }

    /// Whether a `/`-separated path relative to the repository root is secret.
    pub fn is_secret(&self, rel_path: &str) -> bool {
        // `**/` in globset needs at least the root-relative form to match bare names too.
        self.set.is_match(rel_path) || self.set.is_match(format!("x/{rel_path}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_of_other_parts_are_allowed_and_typos_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(dir.path().join("evident.toml"), text).unwrap();
        write("[index]\nmax_file_size = 10\n[model]\nname = \"m\"\n[embed]\nname = \"e\"\n");
        assert_eq!(Config::load(dir.path()).unwrap().max_file_size, 10);
        write("[indx]\nmax_file_size = 10\n");
        assert!(
            matches!(Config::load(dir.path()), Err(Error::Config { message, .. }) if message.contains("indx"))
        );
    }

    #[test]
    fn default_secrets_cover_keys_envs_and_git() {
        let policy = SecretPolicy::new(&[]).unwrap();
        for secret in [
            ".env",
            ".env.local",
            "config/prod.env",
            "deploy/server.pem",
            "keys/tls.KEY",
            "home/.ssh/id_rsa",
            "id_ed25519.pub",
            ".git/config",
            "sub/.git/HEAD",
            ".aws/credentials",
            ".evident/index.db",
        ] {
            assert!(policy.is_secret(secret), "{secret} should be secret");
        }
        for plain in [
            "src/env.py",
            "src/keys.rs",
            "docs/environment.md",
            "gitignore.txt",
        ] {
            assert!(!policy.is_secret(plain), "{plain} should not be secret");
        }
    }

    #[test]
    fn extra_patterns_extend_defaults() {
        let policy = SecretPolicy::new(&["**/*.secret".to_string()]).unwrap();
        assert!(policy.is_secret("a/b.secret"));
        assert!(policy.is_secret(".env"));
        assert!(SecretPolicy::new(&["[".to_string()]).is_err());
    }
}
