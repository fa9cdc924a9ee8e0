//! Import resolution: from an import's module text to a path in the repository.
//!
//! Resolution is a pure function of the import, the importing file's path and
//! the set of files being indexed, so an incremental run and a full rebuild
//! resolve every import the same way.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::lang::js_project::JsProject;
use crate::lang::{ImportResolution, LanguageSpec};

const JS_EXTENSIONS: &[&str] = &["ts", "tsx", "d.ts", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// The set of indexed files, and what can be derived from it once.
pub struct Resolver {
    files: HashSet<String>,
    dirs: HashSet<String>,
    /// Directories absolute Python imports are tried against, after the repo
    /// root and the importing file's directory.
    python_roots: Vec<String>,
    /// `(module path, directory)` for every `go.mod` above an indexed Go file.
    go_modules: Vec<(String, String)>,
    /// File name → paths, for Java's class-name lookups.
    by_file_name: HashMap<String, Vec<String>>,
    /// `(crate name, directory)` for every `Cargo.toml` with a `[package]`
    /// name beside a `src/` of Rust files (`evident-index` → `evident_index`).
    rust_crates: Vec<(String, String)>,
    /// `tsconfig.json` paths and workspace packages, for bare JS/TS specifiers.
    js_project: JsProject,
    /// Include directories for C/C++: `-I` of `compile_commands.json`, else
    /// every directory named `include` (and the root).
    include_dirs: Vec<String>,
    /// `(namespace prefix, directory)` from every `composer.json`'s PSR-4
    /// map, longest prefix first.
    psr4: Vec<(String, String)>,
    /// Ruby's and Lua's load roots: `lib/`, `lua/`, `src/` directories.
    load_roots: Vec<String>,
    /// The file extensions present directly in each directory, so a package
    /// directory is one of the importing language's (`com/acme/util` of
    /// Kotlin files, not of Java files).
    extensions_by_dir: HashMap<String, HashSet<String>>,
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

pub(crate) fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rest}"),
    }
}

/// Resolves `.` and `..` segments; `None` when the path climbs above the root.
pub(crate) fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

impl Resolver {
    pub fn new<'a>(paths: impl IntoIterator<Item = &'a str>, root: &Path) -> Resolver {
        let files: HashSet<String> = paths.into_iter().map(str::to_string).collect();
        let mut dirs = HashSet::new();
        let mut by_file_name: HashMap<String, Vec<String>> = HashMap::new();
        let mut python_roots = HashSet::new();
        let mut extensions_by_dir: HashMap<String, HashSet<String>> = HashMap::new();
        for file in &files {
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
        for file in &files {
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
        let mut go_modules = Vec::new();
        if files.iter().any(|f| f.ends_with(".go")) {
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
        }
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
        // Project files that map bare JS/TS specifiers sit in a directory
        // holding JS/TS files or above one: only those are read.
        let mut js_dirs: HashSet<&str> = HashSet::new();
        for file in &files {
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
        let js_project = JsProject::read(root, js_dirs);
        let include_dirs = include_dirs(root, &files, &dirs);
        let psr4 = psr4_map(root, &files);
        let mut load_roots: Vec<String> = dirs
            .iter()
            .filter(|d| matches!(d.rsplit('/').next(), Some("lib" | "lua" | "src")))
            .cloned()
            .collect();
        load_roots.sort();
        Resolver {
            extensions_by_dir,
            include_dirs,
            psr4,
            load_roots,
            files,
            dirs,
            python_roots,
            go_modules,
            by_file_name,
            rust_crates,
            js_project,
        }
    }

    /// The name of the Rust crate whose `src/` holds `file`, from its
    /// `Cargo.toml`: the first segment of the file's qualified names.
    pub fn rust_crate_name(&self, file: &str) -> Option<&str> {
        self.rust_crates
            .iter()
            .filter(|(_, dir)| {
                let src = join(dir, "src");
                file.starts_with(&format!("{src}/"))
            })
            .max_by_key(|(_, dir)| dir.len())
            .map(|(name, _)| name.as_str())
    }

    /// Whether `name` is a Rust crate of the workspace (`evident_index::x`).
    pub fn is_rust_crate(&self, name: &str) -> bool {
        self.rust_crates.iter().any(|(n, _)| n == name)
    }

    /// What the project's own files declare about modules (Rust crates,
    /// Go modules, `tsconfig.json` paths, workspace packages), for noticing a
    /// change between runs: every stored name and import may then be wrong.
    pub fn layout_signature(&self) -> String {
        let crates = self
            .rust_crates
            .iter()
            .map(|(n, d)| format!("crate {n}={d}"));
        let modules = self.go_modules.iter().map(|(m, d)| format!("go {m}={d}"));
        let includes = self.include_dirs.iter().map(|d| format!("include {d}"));
        let psr4 = self.psr4.iter().map(|(p, d)| format!("psr4 {p}={d}"));
        crates
            .chain(modules)
            .chain(includes)
            .chain(psr4)
            .chain(std::iter::once(self.js_project.signature()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn file(&self, path: &str) -> Option<String> {
        self.files.contains(path).then(|| path.to_string())
    }

    /// The repository path an import refers to, when it is in the repository.
    pub fn resolve(
        &self,
        spec: &LanguageSpec,
        importer: &str,
        module: &str,
        name: Option<&str>,
    ) -> Option<String> {
        let name = name.filter(|n| *n != "*" && *n != "default");
        match spec.import_resolution {
            ImportResolution::Python => self.python(importer, module, name),
            ImportResolution::Rust => self.rust(importer, module, name),
            ImportResolution::JsRelative => self.javascript(importer, module),
            ImportResolution::GoModule => self.go(module),
            ImportResolution::JvmClass(extensions) => self.jvm(module, name, extensions),
            ImportResolution::CInclude => self.c_include(importer, module),
            ImportResolution::CSharpNamespace => self.csharp(module, name),
            ImportResolution::RubyRequire => self.script(importer, module, &["rb"], false),
            ImportResolution::PhpComposer => self.php(importer, module, name),
            ImportResolution::SwiftModule => self.swift(module),
            ImportResolution::ShellSource => self.script(importer, module, &[], true),
            ImportResolution::LuaModule => self.lua(importer, module),
        }
    }

    /// `#include "x.h"`: beside the including file, then the include
    /// directories; `<x.h>` only the include directories (else the system's).
    fn c_include(&self, importer: &str, module: &str) -> Option<String> {
        let (path, quoted) = match module.strip_prefix('<') {
            Some(rest) => (rest.trim_end_matches('>'), false),
            None => (module, true),
        };
        let beside = quoted
            .then(|| normalize(&join(parent_dir(importer), path)))
            .flatten()
            .and_then(|p| self.file(&p));
        beside.or_else(|| {
            self.include_dirs
                .iter()
                .find_map(|dir| self.file(&normalize(&join(dir, path))?))
        })
    }

    /// A path as scripts name files: relative (`./x`, `../x`) to the file,
    /// else from the load roots and the repository root (or, for a shell
    /// script, its own directory first). `extensions` are tried when the
    /// path has none of its own.
    fn script(
        &self,
        importer: &str,
        module: &str,
        extensions: &[&str],
        beside_first: bool,
    ) -> Option<String> {
        let with_extension = |path: &str| -> Option<String> {
            self.file(path).or_else(|| {
                extensions
                    .iter()
                    .find_map(|ext| self.file(&format!("{path}.{ext}")))
            })
        };
        let dir = parent_dir(importer);
        if module.starts_with("./") || module.starts_with("../") || beside_first {
            if let Some(found) = with_extension(&normalize(&join(dir, module))?) {
                return Some(found);
            }
            if module.starts_with("./") || module.starts_with("../") {
                return None;
            }
        }
        let module = module.trim_start_matches('/');
        self.load_roots
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(""))
            .find_map(|root| with_extension(&normalize(&join(root, module))?))
    }

    /// `require "a.b"`: `a/b.lua` or `a/b/init.lua`.
    fn lua(&self, importer: &str, module: &str) -> Option<String> {
        let path = module.replace('.', "/");
        let own_dir = parent_dir(importer);
        std::iter::once("")
            .chain(std::iter::once(own_dir))
            .chain(self.load_roots.iter().map(String::as_str))
            .find_map(|root| {
                let base = join(root, &path);
                self.file(&format!("{base}.lua"))
                    .or_else(|| self.file(&join(&base, "init.lua")))
            })
            // Installed trees put modules under versioned roots
            // (`share/lua/5.4/pl/utils.lua`): by path suffix.
            .or_else(|| {
                let last = path.rsplit('/').next().unwrap_or(&path);
                self.file_with_suffix(&format!("{last}.lua"), &format!("{path}.lua"))
                    .or_else(|| self.file_with_suffix("init.lua", &format!("{path}/init.lua")))
            })
    }

    /// The first directory (in path order) whose path ends with `suffix`,
    /// among those holding a file with one of `extensions` (any directory
    /// when there are none).
    fn dir_of_with_suffix(&self, suffix: &str, extensions: &[&str]) -> Option<String> {
        let mut dirs: Vec<&String> = self
            .dirs
            .iter()
            .filter(|d| *d == suffix || d.ends_with(&format!("/{suffix}")))
            .filter(|d| {
                extensions.is_empty()
                    || self
                        .extensions_by_dir
                        .get(d.as_str())
                        .is_some_and(|present| extensions.iter().any(|e| present.contains(*e)))
            })
            .collect();
        dirs.sort();
        dirs.first().map(|d| d.to_string())
    }

    /// A file named `file_name` whose path ends with `suffix`.
    fn file_with_suffix(&self, file_name: &str, suffix: &str) -> Option<String> {
        let candidates = self.by_file_name.get(file_name)?;
        let mut matching: Vec<&String> = candidates
            .iter()
            .filter(|p| *p == suffix || p.ends_with(&format!("/{suffix}")))
            .collect();
        matching.sort();
        matching.first().map(|p| p.to_string())
    }

    /// `using A.B;` → the namespace's directory (`A/B`, else `A.B`, else `B`
    /// under a directory `A`...); `using S = A.B.C;` → `C.cs` in it.
    fn csharp(&self, module: &str, name: Option<&str>) -> Option<String> {
        if let Some(name) = name {
            let suffix = join(&module.replace('.', "/"), &format!("{name}.cs"));
            return self
                .file_with_suffix(&format!("{name}.cs"), &suffix)
                .or_else(|| {
                    let in_project = format!("{module}/{name}.cs");
                    self.file_with_suffix(&format!("{name}.cs"), &in_project)
                })
                .or_else(|| self.csharp(&format!("{module}.{name}"), None));
        }
        self.dir_of_with_suffix(&module.replace('.', "/"), &["cs"])
            .or_else(|| self.dir_of_with_suffix(module, &["cs"]))
    }

    /// `use A\B\C` through the PSR-4 map (else by path suffix); a
    /// `require`/`include` path beside the file, then from the root.
    fn php(&self, importer: &str, module: &str, name: Option<&str>) -> Option<String> {
        if module.ends_with(".php") || module.ends_with(".inc") || module.contains('/') {
            return self.script(importer, module, &[], true);
        }
        let class = match name {
            Some(name) if module.is_empty() => name.to_string(),
            Some(name) => format!("{module}\\{name}"),
            None => module.to_string(),
        };
        let class = class.trim_start_matches('\\');
        for (prefix, dir) in &self.psr4 {
            if let Some(rest) = class.strip_prefix(prefix.as_str()) {
                let path = join(dir, &format!("{}.php", rest.replace('\\', "/")));
                if let Some(found) = self.file(&normalize(&path)?) {
                    return Some(found);
                }
            }
        }
        // Without a map: by path suffix, the namespace's leading segments
        // dropped one by one (`App\Http\Home` in `app/Http/Home.php`),
        // down to a directory and the class.
        let segments: Vec<&str> = class.split('\\').collect();
        let last = segments.last()?;
        (0..segments.len().saturating_sub(1).max(1)).find_map(|skip| {
            let suffix = segments[skip..].join("/");
            self.file_with_suffix(&format!("{last}.php"), &format!("{suffix}.php"))
        })
    }

    /// `import Module`: the directory `Sources/Module` (SwiftPM), else any
    /// directory named `Module`.
    fn swift(&self, module: &str) -> Option<String> {
        let module = module.split('.').next().unwrap_or(module);
        self.dir_of_with_suffix(&format!("Sources/{module}"), &["swift"])
            .or_else(|| self.dir_of_with_suffix(module, &["swift"]))
    }

    fn python_module(&self, base: &str, dotted: &str) -> Option<String> {
        let rel = join(base, &dotted.replace('.', "/"));
        self.file(&format!("{rel}.py"))
            .or_else(|| self.file(&format!("{rel}.pyi")))
            .or_else(|| self.file(&join(&rel, "__init__.py")))
    }

    fn python_in(&self, base: &str, dotted: &str, name: Option<&str>) -> Option<String> {
        // `from pkg import mod` names a submodule when one exists.
        if let Some(name) = name {
            let sub = if dotted.is_empty() {
                name.to_string()
            } else {
                format!("{dotted}.{name}")
            };
            if let Some(found) = self.python_module(base, &sub) {
                return Some(found);
            }
        }
        if dotted.is_empty() {
            return None;
        }
        self.python_module(base, dotted)
    }

    fn python(&self, importer: &str, module: &str, name: Option<&str>) -> Option<String> {
        let dots = module.len() - module.trim_start_matches('.').len();
        let dotted = &module[dots..];
        if dots > 0 {
            let mut base = parent_dir(importer).to_string();
            for _ in 1..dots {
                if base.is_empty() {
                    return None;
                }
                base = parent_dir(&base).to_string();
            }
            return self.python_in(&base, dotted, name);
        }
        let own_dir = parent_dir(importer);
        std::iter::once("")
            .chain(std::iter::once(own_dir))
            .chain(self.python_roots.iter().map(String::as_str))
            .find_map(|base| self.python_in(base, dotted, name))
    }

    /// The directory holding a Rust file's child modules.
    fn rust_module_dir(file: &str) -> String {
        let name = file.rsplit('/').next().unwrap_or(file);
        if matches!(name, "lib.rs" | "main.rs" | "mod.rs") || Self::is_rust_crate_root(file) {
            parent_dir(file).to_string()
        } else {
            file.trim_end_matches(".rs").to_string()
        }
    }

    fn rust_crate_dir(file: &str) -> Option<String> {
        let parts: Vec<&str> = file.split('/').collect();
        let root = parts
            .iter()
            .rposition(|p| matches!(*p, "src" | "tests" | "benches" | "examples"))?;
        Some(parts[..=root].join("/"))
    }

    /// A file directly in `tests/`, `benches/` or `examples/` is a crate root.
    fn is_rust_crate_root(file: &str) -> bool {
        let dir = parent_dir(file);
        let last = dir.rsplit('/').next().unwrap_or(dir);
        matches!(last, "tests" | "benches" | "examples")
    }

    fn rust(&self, importer: &str, module: &str, name: Option<&str>) -> Option<String> {
        let mut segments: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
        if let Some(name) = name.filter(|n| *n != "self") {
            segments.push(name);
        }
        let (mut dir, rest) = match segments.first().copied() {
            Some("crate") => (Self::rust_crate_dir(importer)?, &segments[1..]),
            Some("self") => (Self::rust_module_dir(importer), &segments[1..]),
            Some("super") => {
                let mut dir = Self::rust_module_dir(importer);
                let mut rest = &segments[..];
                while rest.first() == Some(&"super") {
                    dir = parent_dir(&dir).to_string();
                    rest = &rest[1..];
                }
                (dir, rest)
            }
            // Edition 2018: `use child::x` names a child module of this one, if it exists;
            // otherwise it is another crate: of the workspace, or outside it.
            Some(first) => {
                let dir = Self::rust_module_dir(importer);
                let child = join(&dir, first);
                if self.file(&format!("{child}.rs")).is_none()
                    && self.file(&join(&child, "mod.rs")).is_none()
                {
                    let (_, crate_dir) = self.rust_crates.iter().find(|(n, _)| n == first)?;
                    (join(crate_dir, "src"), &segments[1..])
                } else {
                    (dir, &segments[..])
                }
            }
            None => return None,
        };
        // The module a directory stands for: `a.rs`, `a/mod.rs`, or a crate root.
        let module_file = |dir: &str| {
            self.file(&format!("{dir}.rs"))
                .or_else(|| self.file(&join(dir, "mod.rs")))
                .or_else(|| self.file(&join(dir, "lib.rs")))
                .or_else(|| self.file(&join(dir, "main.rs")))
        };
        let mut found = module_file(&dir);
        for segment in rest {
            dir = join(&dir, segment);
            match module_file(&dir) {
                Some(file) => found = Some(file),
                // The rest are items inside the last module found.
                None => break,
            }
        }
        found
    }

    fn javascript(&self, importer: &str, module: &str) -> Option<String> {
        if !module.starts_with("./")
            && !module.starts_with("../")
            && module != "."
            && module != ".."
        {
            // A bare specifier: the project's `paths`, `baseUrl` or a
            // workspace package, else a package outside the repository.
            return self
                .js_project
                .candidates(importer, module)
                .iter()
                .find_map(|candidate| self.javascript_file(candidate));
        }
        self.javascript_file(&normalize(&join(parent_dir(importer), module))?)
    }

    /// The file a JS/TS module path names: itself, with an extension, or
    /// its directory's `index`.
    fn javascript_file(&self, target: &str) -> Option<String> {
        if let Some(found) = self.file(target) {
            return Some(found);
        }
        // TypeScript lets `./x.js` name `./x.ts`.
        let stem = [".d.ts", ".js", ".jsx", ".mjs", ".cjs"]
            .iter()
            .find_map(|e| target.strip_suffix(e))
            .unwrap_or(target);
        JS_EXTENSIONS
            .iter()
            .find_map(|ext| self.file(&format!("{stem}.{ext}")))
            .or_else(|| {
                JS_EXTENSIONS
                    .iter()
                    .find_map(|ext| self.file(&join(target, &format!("index.{ext}"))))
            })
    }

    fn go(&self, import_path: &str) -> Option<String> {
        self.go_modules.iter().find_map(|(module, module_dir)| {
            let rest = import_path.strip_prefix(module.as_str())?;
            if !rest.is_empty() && !rest.starts_with('/') {
                return None;
            }
            let dir = join(module_dir, rest.trim_start_matches('/'));
            (dir.is_empty() || self.dirs.contains(&dir)).then_some(dir)
        })
    }

    /// A JVM import: `a.b.C` is a class file `a/b/C.<ext>`; `a.b.f` (a
    /// Kotlin top-level function) and `a.b.*` the package directory `a/b`.
    fn jvm(&self, module: &str, name: Option<&str>, extensions: &[&str]) -> Option<String> {
        let class_path = |dotted: &str| -> Option<String> {
            let (package, class) = dotted.rsplit_once('.').unwrap_or(("", dotted));
            extensions.iter().find_map(|ext| {
                let file_name = format!("{class}.{ext}");
                self.file_with_suffix(&file_name, &join(&package.replace('.', "/"), &file_name))
            })
        };
        // The importing language's own directories first (a Kotlin package
        // before a Java one of the same name).
        let package_dir = |dotted: &str| {
            let suffix = dotted.replace('.', "/");
            extensions
                .iter()
                .find_map(|ext| self.dir_of_with_suffix(&suffix, &[ext]))
        };
        match name {
            Some(name) => class_path(&format!("{module}.{name}"))
                .or_else(|| class_path(module))
                .or_else(|| package_dir(module).filter(|_| extensions.len() > 1)),
            // A wildcard import names a package: its directory.
            None => package_dir(module),
        }
    }
}

/// C/C++ include directories: the `-I`/`-iquote`/`-isystem` paths of
/// `compile_commands.json` (at the root or in `build/`) inside the
/// repository; without one, every directory named `include` and the root.
fn include_dirs(root: &Path, files: &HashSet<String>, dirs: &HashSet<String>) -> Vec<String> {
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
fn psr4_map(root: &Path, files: &HashSet<String>) -> Vec<(String, String)> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::by_name;

    fn resolver(files: &[&str]) -> Resolver {
        Resolver::new(files.iter().copied(), Path::new("/nonexistent"))
    }

    #[test]
    fn python_absolute_relative_sibling_and_source_roots() {
        let r = resolver(&[
            "app/main.py",
            "app/helpers.py",
            "pkg/__init__.py",
            "pkg/mod.py",
            "pkg/sub/deep.py",
            "src/rag_common.py",
        ]);
        let py = by_name("python").unwrap();
        assert_eq!(
            r.resolve(py, "app/main.py", "pkg.mod", None).as_deref(),
            Some("pkg/mod.py")
        );
        assert_eq!(
            r.resolve(py, "app/main.py", "pkg", Some("mod")).as_deref(),
            Some("pkg/mod.py")
        );
        assert_eq!(
            r.resolve(py, "app/main.py", "pkg", Some("thing"))
                .as_deref(),
            Some("pkg/__init__.py")
        );
        assert_eq!(
            r.resolve(py, "app/main.py", "helpers", None).as_deref(),
            Some("app/helpers.py")
        );
        assert_eq!(
            r.resolve(py, "app/main.py", "rag_common", Some("f"))
                .as_deref(),
            Some("src/rag_common.py")
        );
        assert_eq!(
            r.resolve(py, "pkg/sub/deep.py", "..mod", Some("x"))
                .as_deref(),
            Some("pkg/mod.py")
        );
        assert_eq!(
            r.resolve(py, "pkg/sub/deep.py", "..", Some("mod"))
                .as_deref(),
            Some("pkg/mod.py")
        );
        assert_eq!(r.resolve(py, "pkg/mod.py", ".", Some("sub")), None);
        assert_eq!(r.resolve(py, "pkg/mod.py", "....x", None), None);
        assert_eq!(r.resolve(py, "app/main.py", "os.path", None), None);
    }

    #[test]
    fn javascript_relative_with_extensions_and_index() {
        let r = resolver(&["web/a.ts", "web/util/index.ts", "web/b.js", "web/c.tsx"]);
        let ts = by_name("typescript").unwrap();
        assert_eq!(
            r.resolve(ts, "web/a.ts", "./util", None).as_deref(),
            Some("web/util/index.ts")
        );
        assert_eq!(
            r.resolve(ts, "web/a.ts", "./b", None).as_deref(),
            Some("web/b.js")
        );
        assert_eq!(
            r.resolve(ts, "web/a.ts", "./c.js", None).as_deref(),
            Some("web/c.tsx")
        );
        assert_eq!(
            r.resolve(ts, "web/util/index.ts", "../a", None).as_deref(),
            Some("web/a.ts")
        );
        assert_eq!(r.resolve(ts, "web/a.ts", "react", None), None);
        assert_eq!(r.resolve(ts, "web/a.ts", "../../../x", None), None);
    }

    #[test]
    fn javascript_tsconfig_paths_base_url_and_workspace_packages() {
        let root = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // Comments and trailing commas, as tsc accepts them; `paths` relative
        // to `baseUrl`, which comes from the config this one extends.
        write(
            "app/tsconfig.base.json",
            r#"{ "compilerOptions": { "baseUrl": "./src", } }"#,
        );
        write(
            "app/tsconfig.json",
            r#"{
              // the app's aliases
              "extends": "./tsconfig.base",
              "compilerOptions": { "paths": { "@lib/*": ["lib/*"], "@lib/special": ["other/special"], "config": ["conf/main"] } },
            }"#,
        );
        write(
            "packages/ui/package.json",
            r#"{"name": "@acme/ui", "main": "./dist/index.js", "types": "./src/main.ts"}"#,
        );
        write(
            "packages/util/package.json",
            r#"{"name": "util-pkg", "exports": {".": {"import": "./lib/entry.js"}}}"#,
        );
        write(
            "node_modules/left-pad/package.json",
            r#"{"name": "left-pad"}"#,
        );
        let files = [
            "app/src/main.ts",
            "app/src/lib/math.ts",
            "app/src/other/special.ts",
            "app/src/conf/main.ts",
            "app/src/plain/thing.ts",
            "packages/ui/src/main.ts",
            "packages/ui/src/button.tsx",
            "packages/util/lib/entry.ts",
            "packages/util/lib/index.ts",
            "node_modules/left-pad/index.js",
        ];
        let r = Resolver::new(files.iter().copied(), root.path());
        let ts = by_name("typescript").unwrap();
        let at = |importer: &str, module: &str| r.resolve(ts, importer, module, None);
        assert_eq!(
            at("app/src/main.ts", "@lib/math").as_deref(),
            Some("app/src/lib/math.ts")
        );
        // The longer prefix wins over the wildcard.
        assert_eq!(
            at("app/src/main.ts", "@lib/special").as_deref(),
            Some("app/src/other/special.ts")
        );
        assert_eq!(
            at("app/src/main.ts", "config").as_deref(),
            Some("app/src/conf/main.ts")
        );
        // `baseUrl` alone makes `plain/thing` a repository path.
        assert_eq!(
            at("app/src/main.ts", "plain/thing").as_deref(),
            Some("app/src/plain/thing.ts")
        );
        // The config applies below its directory only.
        assert_eq!(at("packages/ui/src/main.ts", "@lib/math"), None);
        // Workspace packages by name: the declared entry, subpaths under the package or its src/.
        assert_eq!(
            at("app/src/main.ts", "@acme/ui").as_deref(),
            Some("packages/ui/src/main.ts")
        );
        assert_eq!(
            at("app/src/main.ts", "@acme/ui/button").as_deref(),
            Some("packages/ui/src/button.tsx")
        );
        assert_eq!(
            at("app/src/main.ts", "util-pkg").as_deref(),
            Some("packages/util/lib/entry.ts")
        );
        // A name that merely starts like a package's is another package.
        assert_eq!(at("app/src/main.ts", "@acme/uikit"), None);
        // node_modules is never a workspace.
        assert_eq!(at("app/src/main.ts", "left-pad"), None);
        assert_eq!(at("app/src/main.ts", "react"), None);
        let before = r.layout_signature();
        write("packages/ui/package.json", r#"{"name": "@acme/widgets"}"#);
        assert_ne!(
            Resolver::new(files.iter().copied(), root.path()).layout_signature(),
            before
        );
    }

    #[test]
    fn rust_crate_self_super_and_mod_declarations() {
        let r = resolver(&[
            "src/lib.rs",
            "src/store.rs",
            "src/store/query.rs",
            "src/a/mod.rs",
            "src/a/b.rs",
        ]);
        let rs = by_name("rust").unwrap();
        assert_eq!(
            r.resolve(rs, "src/a/b.rs", "crate::store", Some("Db"))
                .as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/b.rs", "crate::store::query", Some("*"))
                .as_deref(),
            Some("src/store/query.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/b.rs", "super", Some("X")).as_deref(),
            Some("src/a/mod.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/b.rs", "super::super::store", Some("Db"))
                .as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/mod.rs", "self", Some("b")).as_deref(),
            Some("src/a/b.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/lib.rs", "self", Some("store"))
                .as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/store.rs", "self", Some("query"))
                .as_deref(),
            Some("src/store/query.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/b.rs", "crate", Some("Thing"))
                .as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/b.rs", "std::collections", Some("HashMap")),
            None
        );
        // Integration tests: each file in tests/ is a crate root; `mod common;` is tests/common/mod.rs.
        let t = resolver(&["tests/indexing.rs", "tests/common/mod.rs"]);
        assert_eq!(
            t.resolve(rs, "tests/indexing.rs", "self", Some("common"))
                .as_deref(),
            Some("tests/common/mod.rs")
        );
        // Edition 2018: a child module without `self::`; other crates stay unresolved.
        assert_eq!(
            r.resolve(rs, "src/lib.rs", "store", Some("Db")).as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/a/mod.rs", "b", Some("X")).as_deref(),
            Some("src/a/b.rs")
        );
        assert_eq!(
            r.resolve(rs, "src/lib.rs", "serde", Some("Serialize")),
            None
        );
    }

    #[test]
    fn java_classes_and_packages() {
        let r = resolver(&[
            "src/main/java/com/x/A.java",
            "src/main/java/com/x/util/B.java",
        ]);
        let java = by_name("java").unwrap();
        assert_eq!(
            r.resolve(java, "src/main/java/com/x/A.java", "com.x.util", Some("B"))
                .as_deref(),
            Some("src/main/java/com/x/util/B.java")
        );
        assert_eq!(
            r.resolve(
                java,
                "src/main/java/com/x/util/B.java",
                "com.x.A",
                Some("run")
            )
            .as_deref(),
            Some("src/main/java/com/x/A.java")
        );
        assert_eq!(
            r.resolve(java, "src/main/java/com/x/A.java", "com.x.util", Some("*"))
                .as_deref(),
            Some("src/main/java/com/x/util")
        );
        assert_eq!(
            r.resolve(
                java,
                "src/main/java/com/x/A.java",
                "java.util",
                Some("List")
            ),
            None
        );
    }

    #[test]
    fn c_includes_beside_then_include_dirs_and_system_headers() {
        let r = resolver(&[
            "src/main.c",
            "src/local.h",
            "include/util.h",
            "lib/include/net/sock.h",
        ]);
        let c = by_name("c").unwrap();
        let resolve = |module: &str| r.resolve(c, "src/main.c", module, Some("*"));
        assert_eq!(resolve("local.h").as_deref(), Some("src/local.h"));
        assert_eq!(resolve("util.h").as_deref(), Some("include/util.h"));
        assert_eq!(
            resolve("net/sock.h").as_deref(),
            Some("lib/include/net/sock.h")
        );
        // `<...>` is searched in the include directories only, then outside.
        assert_eq!(resolve("<util.h>").as_deref(), Some("include/util.h"));
        assert_eq!(resolve("<local.h>"), None);
        assert_eq!(resolve("<stdio.h>"), None);
        assert_eq!(resolve("../../etc/passwd"), None);
    }

    #[test]
    fn compile_commands_name_the_include_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("third/api")).unwrap();
        std::fs::write(
            root.join("compile_commands.json"),
            format!(
                r#"[{{"directory": "{}", "command": "cc -Ithird/api -I /usr/include -c src/a.c", "file": "src/a.c"}}]"#,
                root.display()
            ),
        )
        .unwrap();
        let r = Resolver::new(["src/a.c", "third/api/api.h", "include/api.h"], root);
        let c = by_name("c").unwrap();
        // Only the database's directories: `include/` is not guessed then.
        assert_eq!(
            r.resolve(c, "src/a.c", "api.h", Some("*")).as_deref(),
            Some("third/api/api.h")
        );
    }

    #[test]
    fn scripts_ruby_bash_lua_and_swift_modules() {
        let r = resolver(&[
            "lib/shop/pricing.rb",
            "bin/checkout.rb",
            "scripts/deploy.sh",
            "scripts/lib/log.sh",
            "acme/util.lua",
            "acme/init.lua",
            "share/lua/5.4/pl/utils.lua",
            "main.lua",
            "Sources/Geometry/Circle.swift",
            "Sources/App/main.swift",
        ]);
        let ruby = by_name("ruby").unwrap();
        assert_eq!(
            r.resolve(ruby, "bin/checkout.rb", "shop/pricing", Some("*"))
                .as_deref(),
            Some("lib/shop/pricing.rb")
        );
        assert_eq!(
            r.resolve(ruby, "bin/checkout.rb", "./../lib/shop/pricing", Some("*"))
                .as_deref(),
            Some("lib/shop/pricing.rb")
        );
        assert_eq!(r.resolve(ruby, "bin/checkout.rb", "json", Some("*")), None);
        let bash = by_name("bash").unwrap();
        assert_eq!(
            r.resolve(bash, "scripts/deploy.sh", "./lib/log.sh", Some("*"))
                .as_deref(),
            Some("scripts/lib/log.sh")
        );
        assert_eq!(
            r.resolve(bash, "scripts/deploy.sh", "lib/log.sh", Some("*"))
                .as_deref(),
            Some("scripts/lib/log.sh")
        );
        let lua = by_name("lua").unwrap();
        assert_eq!(
            r.resolve(lua, "main.lua", "acme.util", None).as_deref(),
            Some("acme/util.lua")
        );
        assert_eq!(
            r.resolve(lua, "main.lua", "acme", None).as_deref(),
            Some("acme/init.lua")
        );
        assert_eq!(
            r.resolve(lua, "main.lua", "pl.utils", None).as_deref(),
            Some("share/lua/5.4/pl/utils.lua")
        );
        let swift = by_name("swift").unwrap();
        assert_eq!(
            r.resolve(swift, "Sources/App/main.swift", "Geometry", Some("*"))
                .as_deref(),
            Some("Sources/Geometry")
        );
        assert_eq!(
            r.resolve(swift, "Sources/App/main.swift", "Foundation", Some("*")),
            None
        );
    }

    #[test]
    fn csharp_php_and_kotlin() {
        let r = resolver(&[
            "src/Acme.Util/Strings.cs",
            "src/Acme.App/Worker.cs",
            "app/Http/Controllers/Home.php",
            "app/helpers.php",
            "java/com/acme/util/Legacy.java",
            "kt/com/acme/util/Strings.kt",
        ]);
        let cs = by_name("csharp").unwrap();
        assert_eq!(
            r.resolve(cs, "src/Acme.App/Worker.cs", "Acme.Util", Some("*"))
                .as_deref(),
            Some("src/Acme.Util")
        );
        assert_eq!(
            r.resolve(cs, "src/Acme.App/Worker.cs", "Acme.Util", Some("Strings"))
                .as_deref(),
            Some("src/Acme.Util/Strings.cs")
        );
        assert_eq!(
            r.resolve(cs, "src/Acme.App/Worker.cs", "System", Some("*")),
            None
        );
        let php = by_name("php").unwrap();
        // Without a composer.json: by path suffix.
        assert_eq!(
            r.resolve(
                php,
                "app/helpers.php",
                "App\\Http\\Controllers",
                Some("Home")
            )
            .as_deref(),
            Some("app/Http/Controllers/Home.php")
        );
        assert_eq!(
            r.resolve(
                php,
                "app/Http/Controllers/Home.php",
                ".//../../helpers.php",
                Some("*")
            )
            .as_deref(),
            Some("app/helpers.php")
        );
        // A Kotlin package directory before a Java one of the same name.
        let kotlin = by_name("kotlin").unwrap();
        assert_eq!(
            r.resolve(kotlin, "kt/com/acme/App.kt", "com.acme.util", Some("trim"))
                .as_deref(),
            Some("kt/com/acme/util")
        );
    }
}
