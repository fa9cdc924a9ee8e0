//! Index configuration: defaults, then `evident.toml` in the repository root.

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::error::{Error, Result};

/// Files larger than this are skipped (and reported) unless configured otherwise.
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
    // Read by the CLI (model servers); named here so that a typo elsewhere is still an error.
    #[serde(default, rename = "model")]
    _model: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "embed")]
    _embed: Option<serde::de::IgnoredAny>,
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
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            exclude: Vec::new(),
            secrets: SecretPolicy::new(&[]).expect("default patterns are valid"),
        }
    }
}

impl Config {
    /// Defaults overlaid with `<root>/evident.toml` when it exists.
    pub fn load(root: &Path) -> Result<Config> {
        let path = root.join("evident.toml");
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
        Ok(Config {
            max_file_size: parsed.index.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE),
            exclude: parsed.index.exclude,
            secrets,
        })
    }
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
