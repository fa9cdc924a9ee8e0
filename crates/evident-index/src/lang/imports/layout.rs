//! What the project's own files say about its modules, read once per
//! resolver: Python source roots, Go modules, Rust crates, the directories
//! JS/TS project files may sit in, C include directories, PHP's PSR-4 map
//! and Ruby's and Lua's load roots.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::paths::{join, normalize, parent_dir, JS_EXTENSIONS};

/// What the file list alone tells: every directory, files by name, the
/// extensions in each directory, and the Python roots named by layout.
pub(super) struct Listing {
    pub(super) dirs: HashSet<String>,
    pub(super) by_file_name: HashMap<String, Vec<String>>,
    pub(super) extensions_by_dir: HashMap<String, HashSet<String>>,
    pub(super) python_roots: Vec<String>,
}

pub(super) fn listing(files: &HashSet<String>) -> Listing {
    let mut dirs = HashSet::new();
    let mut by_file_name: HashMap<String, Vec<String>> = HashMap::new();
    let mut python_roots = HashSet::new();
    let mut extensions_by_dir: HashMap<String, HashSet<String>> = HashMap::new();
    for file in files {
        if let Some((_, ext)) = file.rsplit_once('.') {
            extensions_by_dir
                .entry(parent_dir(file).to_string())
                .or_default()
                .insert(ext.to_string());
        }
        let mut dir = parent_dir(file);
        let name = file.rsplit('/').next().unwrap_or(file);
        by_file_name
            .entry(name.to_string())
            .or_default()
            .push(file.clone());
        if name == "setup.py" && !dir.is_empty() {
            python_roots.insert(dir.to_string());
        }
        while !dir.is_empty() && dirs.insert(dir.to_string()) {
            let last = dir.rsplit('/').next().unwrap_or(dir);
            if matches!(last, "src" | "lib" | "python") {
                python_roots.insert(dir.to_string());
            }
            dir = parent_dir(dir);
        }
    }
    // The parent of a top-level package (a directory with `__init__.py`
    // whose parent has none) is where its absolute imports start.
    for file in files {
        if let Some(package) = file.strip_suffix("/__init__.py") {
            let parent = parent_dir(package);
            if !files.contains(&join(parent, "__init__.py")) {
                python_roots.insert(parent.to_string());
            }
        }
    }
    let mut python_roots: Vec<String> =
        python_roots.into_iter().filter(|r| !r.is_empty()).collect();
    python_roots.sort();
    Listing {
        dirs,
        by_file_name,
        extensions_by_dir,
        python_roots,
    }
}

/// `(module path, directory)` for every `go.mod` above an indexed Go file.
pub(super) fn go_modules(
    root: &Path,
    files: &HashSet<String>,
    dirs: &HashSet<String>,
) -> Vec<(String, String)> {
    let mut go_modules = Vec::new();
    if !files.iter().any(|f| f.ends_with(".go")) {
        return go_modules;
    }
    let mut go_dirs: Vec<&str> = std::iter::once("")
        .chain(dirs.iter().map(String::as_str))
        .collect();
    go_dirs.sort_unstable();
    for dir in go_dirs {
        let Ok(text) = std::fs::read_to_string(root.join(dir).join("go.mod")) else {
            continue;
        };
        let module = text.lines().find_map(|l| {
            l.trim()
                .strip_prefix("module ")
                .map(|m| m.trim().trim_matches('"').to_string())
        });
        if let Some(module) = module {
            go_modules.push((module, dir.to_string()));
        }
    }
    go_modules
}

/// `(crate name, directory)` for every `Cargo.toml` with a `[package]` name
/// beside a `src/` of Rust files (`evident-index` → `evident_index`).
pub(super) fn rust_crates(root: &Path, files: &HashSet<String>) -> Vec<(String, String)> {
    let mut rust_crates = Vec::new();
    let mut crate_dirs: Vec<&str> = files
        .iter()
        .filter(|f| f.ends_with(".rs"))
        .filter_map(|f| {
            let (before, _) = f
                .split_once("/src/")
                .or_else(|| f.strip_prefix("src/").map(|rest| ("", rest)))?;
            Some(before)
        })
        .collect();
    crate_dirs.sort_unstable();
    crate_dirs.dedup();
    for dir in crate_dirs {
        let Ok(text) = std::fs::read_to_string(root.join(dir).join("Cargo.toml")) else {
            continue;
        };
        let name = toml::from_str::<toml::Table>(&text)
            .ok()
            .and_then(|t| t.get("package")?.get("name")?.as_str().map(str::to_string));
        if let Some(name) = name {
            rust_crates.push((name.replace('-', "_"), dir.to_string()));
        }
    }
    rust_crates
}

/// Project files that map bare JS/TS specifiers sit in a directory holding
/// JS/TS files or above one: only those directories are read.
pub(super) fn js_dirs(files: &HashSet<String>) -> Vec<&str> {
    let mut js_dirs: HashSet<&str> = HashSet::new();
    for file in files {
        let ext = file.rsplit('.').next().unwrap_or("");
        if !JS_EXTENSIONS.contains(&ext) {
            continue;
        }
        let mut dir = parent_dir(file);
        while js_dirs.insert(dir) && !dir.is_empty() {
            dir = parent_dir(dir);
        }
    }
    let mut js_dirs: Vec<&str> = js_dirs.into_iter().collect();
    js_dirs.sort_unstable();
    js_dirs
}

/// Ruby's and Lua's load roots: `lib/`, `lua/`, `src/` directories.
pub(super) fn load_roots(dirs: &HashSet<String>) -> Vec<String> {
    let mut load_roots: Vec<String> = dirs
        .iter()
        .filter(|d| matches!(d.rsplit('/').next(), Some("lib" | "lua" | "src")))
        .cloned()
        .collect();
    load_roots.sort();
    load_roots
}

/// C/C++ include directories: the `-I`/`-iquote`/`-isystem` paths of
/// `compile_commands.json` (at the root or in `build/`) inside the
/// repository; without one, every directory named `include` and the root.
pub(super) fn include_dirs(
    root: &Path,
    files: &HashSet<String>,
    dirs: &HashSet<String>,
) -> Vec<String> {
    const C_EXTENSIONS: &[&str] = &["c", "h", "cc", "cpp", "cxx", "hpp", "hh"];
    if !files
        .iter()
        .any(|f| C_EXTENSIONS.contains(&f.rsplit('.').next().unwrap_or("")))
    {
        return Vec::new();
    }
    let database = ["compile_commands.json", "build/compile_commands.json"]
        .iter()
        .find_map(|p| std::fs::read_to_string(root.join(p)).ok());
    if let Some(text) = database {
        let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let mut found: Vec<String> = Vec::new();
        let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
        for entry in &entries {
            let directory = entry
                .get("directory")
                .and_then(|d| d.as_str())
                .unwrap_or("");
            let words: Vec<String> = match (entry.get("arguments"), entry.get("command")) {
                (Some(serde_json::Value::Array(args)), _) => args
                    .iter()
                    .filter_map(|a| a.as_str().map(str::to_string))
                    .collect(),
                (_, Some(serde_json::Value::String(command))) => {
                    command.split_whitespace().map(str::to_string).collect()
                }
                _ => Vec::new(),
            };
            let mut words = words.iter();
            while let Some(word) = words.next() {
                let path = ["-I", "-iquote", "-isystem"].iter().find_map(|flag| {
                    let rest = word.strip_prefix(flag)?;
                    if rest.is_empty() {
                        words.next().cloned()
                    } else {
                        Some(rest.to_string())
                    }
                });
                let Some(path) = path else {
                    continue;
                };
                let absolute = Path::new(directory).join(&path);
                let absolute = absolute.canonicalize().unwrap_or(absolute);
                if let Ok(rel) = absolute.strip_prefix(&canonical_root) {
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    if !found.contains(&rel) {
                        found.push(rel);
                    }
                }
            }
        }
        return found;
    }
    let mut found: Vec<String> = dirs
        .iter()
        .filter(|d| d.rsplit('/').next() == Some("include"))
        .cloned()
        .collect();
    found.sort();
    found.push(String::new());
    found
}

/// `(namespace prefix, directory)` from each `composer.json`'s
/// `autoload.psr-4` and `autoload-dev.psr-4`, longest prefix first.
pub(super) fn psr4_map(root: &Path, files: &HashSet<String>) -> Vec<(String, String)> {
    if !files.iter().any(|f| f.ends_with(".php")) {
        return Vec::new();
    }
    // `composer.json` is not indexed: look beside every PHP file and above.
    let mut dirs: HashSet<&str> = HashSet::new();
    for file in files.iter().filter(|f| f.ends_with(".php")) {
        let mut dir = parent_dir(file);
        while dirs.insert(dir) && !dir.is_empty() {
            dir = parent_dir(dir);
        }
    }
    let mut dirs: Vec<&str> = dirs.into_iter().collect();
    dirs.sort_unstable();
    let mut map = Vec::new();
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(root.join(dir).join("composer.json")) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        for section in ["autoload", "autoload-dev"] {
            let Some(entries) = json
                .pointer(&format!("/{section}/psr-4"))
                .and_then(|m| m.as_object())
            else {
                continue;
            };
            for (prefix, paths) in entries {
                let paths: Vec<&str> = match paths {
                    serde_json::Value::String(p) => vec![p.as_str()],
                    serde_json::Value::Array(ps) => ps.iter().filter_map(|p| p.as_str()).collect(),
                    _ => Vec::new(),
                };
                for path in paths {
                    let target =
                        normalize(&join(dir, path.trim_end_matches('/'))).unwrap_or_default();
                    map.push((prefix.trim_start_matches('\\').to_string(), target));
                }
            }
        }
    }
    map.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
    map
}
