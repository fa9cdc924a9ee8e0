//! The index's configuration: defaults, then `[index]`, `[secrets]` and
//! `[docs]` of the repository's `evident.toml` (read by `settings.rs`), checked.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::settings::{Settings, CONFIG_FILE};
use globset::{Glob, GlobSet, GlobSetBuilder};

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

/// A knowledge directory outside the repository, indexed read-only: its
/// documents appear under `@NAME/` (NAME: the directory's own name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocsDir {
    /// `@` and the directory's name (made unique with `-2`, `-3`, …).
    pub mount: String,
    /// Canonical.
    pub path: PathBuf,
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
        Config::from_settings(root, &Settings::repository(root)?)
    }

    /// [`Config::load`] with the size limit the index at `root` was built
    /// with (`evident index --max-file-size`): whatever it indexed, its
    /// readers read.
    pub(crate) fn of_index(root: &Path, conn: &rusqlite::Connection) -> Result<Config> {
        let mut config = Config::load(root)?;
        if let Some(limit) = crate::store::meta(conn, "max_file_size")?.and_then(|v| v.parse().ok())
        {
            config.max_file_size = limit;
        }
        Ok(config)
    }

    /// The index's part of `settings`, checked: patterns that compile,
    /// documents directories that exist outside the repository.
    pub fn from_settings(root: &Path, settings: &Settings) -> Result<Config> {
        let path = root.join(CONFIG_FILE);
        let invalid = |message: String| Error::Config {
            path: path.clone(),
            message,
        };
        let secrets = SecretPolicy::new(&settings.secrets.extra).map_err(invalid)?;
        for pattern in &settings.index.exclude {
            Glob::new(pattern).map_err(|e| invalid(format!("index.exclude: {e}")))?;
        }
        let docs_dirs = docs_dirs(root, &settings.docs.dirs)
            .map_err(|message| invalid(format!("docs.dirs: {message}")))?;
        Ok(Config {
            max_file_size: settings
                .index
                .max_file_size
                .unwrap_or(DEFAULT_MAX_FILE_SIZE),
            exclude: settings.index.exclude.clone(),
            secrets,
            docs_dirs,
        })
    }
}

/// Resolves and names `[docs] dirs`: each must be an existing directory
/// outside the repository (inside, its documents are indexed already).
fn docs_dirs(root: &Path, dirs: &[String]) -> std::result::Result<Vec<DocsDir>, String> {
    if dirs.is_empty() {
        return Ok(Vec::new());
    }
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
