//! How a JavaScript/TypeScript project maps bare import specifiers to its
//! own files, as its tools see it: `compilerOptions.baseUrl` and `paths` in
//! the nearest `tsconfig.json` (or `jsconfig.json`, following relative
//! `extends`), and the packages of a workspace (npm, yarn, pnpm), each a
//! `package.json` with a `name` that a bare import of that name reaches.
//!
//! This module reads those files and answers candidate paths; it does not
//! decide which candidate exists (the [`super::imports::Resolver`] does) and
//! never looks outside the repository or into `node_modules`.

use std::path::Path;

use serde_json::Value;

/// `extends` chains followed at most this deep.
const MAX_EXTENDS: usize = 4;

/// The module settings of one `tsconfig.json`/`jsconfig.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TsConfig {
    /// The directory holding the config: it applies to files below it.
    dir: String,
    /// `baseUrl`, as a repository directory.
    base_url: Option<String>,
    /// `paths`: pattern → substitutions, each a repository path that may hold one `*`.
    paths: Vec<(String, Vec<String>)>,
}

/// A workspace package: a `package.json` with a name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Package {
    name: String,
    dir: String,
    /// The entry its `package.json` declares (`types`, `module`, `main`,
    /// `exports["."]`), as repository paths, in that order.
    entries: Vec<String>,
}

/// What a project declares about bare specifiers.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct JsProject {
    configs: Vec<TsConfig>,
    packages: Vec<Package>,
}

fn join(dir: &str, rest: &str) -> String {
    super::imports::normalize(&super::imports::join(dir, rest)).unwrap_or_default()
}

fn read_jsonc(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    jsonc_parser::parse_to_serde_value(&text, &Default::default()).ok()
}

impl JsProject {
    /// Reads the configs and packages in `dirs` (repository directories,
    /// `""` for the root) under `root`.
    pub(crate) fn read<'a>(root: &Path, dirs: impl IntoIterator<Item = &'a str>) -> JsProject {
        let mut project = JsProject::default();
        for dir in dirs {
            if dir.split('/').any(|part| part == "node_modules") {
                continue;
            }
            for name in ["tsconfig.json", "jsconfig.json"] {
                if let Some(config) = Self::config(root, dir, name, 0) {
                    project.configs.push(config);
                    break;
                }
            }
            if let Some(package) = Self::package(root, dir) {
                project.packages.push(package);
            }
        }
        project.configs.sort_by(|a, b| a.dir.cmp(&b.dir));
        project.packages.sort_by(|a, b| a.name.cmp(&b.name));
        project
    }

    /// `dir/file`'s module settings, with what it `extends` underneath.
    fn config(root: &Path, dir: &str, file: &str, depth: usize) -> Option<TsConfig> {
        let json = read_jsonc(&root.join(dir).join(file))?;
        let mut config = match json.get("extends").and_then(Value::as_str) {
            Some(parent) if depth < MAX_EXTENDS && parent.starts_with('.') => {
                let path = join(dir, parent);
                let path = if path.ends_with(".json") {
                    path
                } else {
                    format!("{path}.json")
                };
                let (parent_dir, parent_file) = path.rsplit_once('/').unwrap_or(("", &path));
                Self::config(root, parent_dir, parent_file, depth + 1)
            }
            _ => None,
        }
        .unwrap_or(TsConfig {
            dir: String::new(),
            base_url: None,
            paths: Vec::new(),
        });
        config.dir = dir.to_string();
        let options = json.get("compilerOptions");
        if let Some(base) = options
            .and_then(|o| o.get("baseUrl"))
            .and_then(Value::as_str)
        {
            config.base_url = Some(join(dir, base));
        }
        if let Some(paths) = options
            .and_then(|o| o.get("paths"))
            .and_then(Value::as_object)
        {
            // Substitutions are relative to `baseUrl`, else to this config.
            let base = config.base_url.clone().unwrap_or_else(|| dir.to_string());
            config.paths = paths
                .iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|t| join(&base, t))
                        .collect();
                    (pattern.clone(), targets)
                })
                .collect();
        }
        (config.base_url.is_some() || !config.paths.is_empty()).then_some(config)
    }

    fn package(root: &Path, dir: &str) -> Option<Package> {
        let json = read_jsonc(&root.join(dir).join("package.json"))?;
        let name = json.get("name")?.as_str()?.to_string();
        let mut entries = Vec::new();
        for field in ["types", "typings", "module", "main"] {
            if let Some(entry) = json.get(field).and_then(Value::as_str) {
                entries.push(join(dir, entry));
            }
        }
        let mut dot = json.get("exports");
        if let Some(Value::Object(map)) = dot {
            if map.keys().any(|k| k.starts_with('.')) {
                dot = map.get(".");
            }
        }
        // `exports` conditions, outermost first: `{"types": ..., "import": ..., "default": ...}`.
        let mut pending: Vec<&Value> = dot.into_iter().collect();
        while let Some(value) = pending.pop() {
            match value {
                Value::String(entry) => entries.push(join(dir, entry)),
                Value::Object(conditions) => pending.extend(conditions.values().rev()),
                _ => {}
            }
        }
        Some(Package {
            name,
            dir: dir.to_string(),
            entries,
        })
    }

    /// Where a bare `specifier` imported from `importer` may be, best first:
    /// each is a path to probe as a file (with extensions) or a directory.
    pub(crate) fn candidates(&self, importer: &str, specifier: &str) -> Vec<String> {
        let mut out = Vec::new();
        // The nearest config above the importer.
        let config = self
            .configs
            .iter()
            .filter(|c| c.dir.is_empty() || importer.starts_with(&format!("{}/", c.dir)))
            .max_by_key(|c| c.dir.len());
        if let Some(config) = config {
            // The pattern with the longest prefix before its `*` wins, as in tsc.
            let matched = config
                .paths
                .iter()
                .filter_map(|(pattern, targets)| {
                    let star = match pattern.split_once('*') {
                        Some((prefix, suffix)) => specifier
                            .strip_prefix(prefix)
                            .and_then(|rest| rest.strip_suffix(suffix))?,
                        None if pattern == specifier => "",
                        None => return None,
                    };
                    let prefix_len = pattern.split('*').next().map_or(0, str::len);
                    Some((prefix_len, star, targets))
                })
                .max_by_key(|(prefix_len, _, _)| *prefix_len);
            if let Some((_, star, targets)) = matched {
                out.extend(targets.iter().map(|t| t.replacen('*', star, 1)));
            }
            if let Some(base) = &config.base_url {
                out.push(join(base, specifier));
            }
        }
        // A workspace package: the longest name the specifier starts with.
        let package = self
            .packages
            .iter()
            .filter(|p| {
                specifier == p.name
                    || specifier
                        .strip_prefix(p.name.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .max_by_key(|p| p.name.len());
        if let Some(package) = package {
            let sub = specifier[package.name.len()..].trim_start_matches('/');
            if sub.is_empty() {
                out.extend(package.entries.iter().cloned());
                out.push(join(&package.dir, "src/index"));
                out.push(package.dir.clone());
            } else {
                out.push(join(&package.dir, sub));
                out.push(join(&package.dir, &format!("src/{sub}")));
            }
        }
        out
    }

    /// What the configs and packages say, for noticing a change between runs.
    pub(crate) fn signature(&self) -> String {
        let mut lines = Vec::new();
        for c in &self.configs {
            lines.push(format!(
                "tsconfig {} base={} paths={:?}",
                c.dir,
                c.base_url.as_deref().unwrap_or(""),
                c.paths
            ));
        }
        for p in &self.packages {
            lines.push(format!("package {}={} {:?}", p.name, p.dir, p.entries));
        }
        lines.join("\n")
    }
}
