//! The resolver: the set of indexed files, what the project's files say
//! about its modules, and the dispatch to each language's rule.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::layout;
use super::packages::DeclaredPackages;
use super::paths::join;
use crate::lang::js_project::JsProject;
use crate::lang::{ImportResolution, LanguageSpec};

/// The set of indexed files, and what can be derived from it once.
#[derive(Clone)]
pub struct Resolver {
    pub(super) files: HashSet<String>,
    pub(super) dirs: HashSet<String>,
    /// Directories absolute Python imports are tried against, after the repo
    /// root and the importing file's directory.
    pub(super) python_roots: Vec<String>,
    /// `(module path, directory)` for every `go.mod` above an indexed Go file.
    pub(super) go_modules: Vec<(String, String)>,
    /// File name → paths, for Java's class-name lookups.
    pub(super) by_file_name: HashMap<String, Vec<String>>,
    /// `(crate name, directory)` for every `Cargo.toml` with a `[package]`
    /// name beside a `src/` of Rust files (`evident-index` → `evident_index`).
    pub(super) rust_crates: Vec<(String, String)>,
    /// `tsconfig.json` paths and workspace packages, for bare JS/TS specifiers.
    pub(super) js_project: JsProject,
    /// Include directories for C/C++: `-I` of `compile_commands.json`, else
    /// every directory named `include` (and the root).
    pub(super) include_dirs: Vec<String>,
    /// `(namespace prefix, directory)` from every `composer.json`'s PSR-4
    /// map, longest prefix first.
    pub(super) psr4: Vec<(String, String)>,
    /// Ruby's and Lua's load roots: `lib/`, `lua/`, `src/` directories.
    pub(super) load_roots: Vec<String>,
    /// The file extensions present directly in each directory, so a package
    /// directory is one of the importing language's (`com/acme/util` of
    /// Kotlin files, not of Java files).
    pub(super) extensions_by_dir: HashMap<String, HashSet<String>>,
    /// Packages files declare where no directory spells them.
    pub(super) declared: DeclaredPackages,
}

impl Resolver {
    /// Over the files at `paths`, with the packages `declared` names (those
    /// of files outside the set are dropped).
    pub fn new<'a>(
        paths: impl IntoIterator<Item = &'a str>,
        root: &Path,
        mut declared: DeclaredPackages,
    ) -> Resolver {
        let files: HashSet<String> = paths.into_iter().map(str::to_string).collect();
        declared.retain(|p| files.contains(p));
        let listing = layout::listing(&files);
        let js_project = JsProject::read(root, layout::js_dirs(&files));
        Resolver {
            go_modules: layout::go_modules(root, &files, &listing.dirs),
            rust_crates: layout::rust_crates(root, &files),
            include_dirs: layout::include_dirs(root, &files, &listing.dirs),
            psr4: layout::psr4_map(root, &files),
            load_roots: layout::load_roots(&listing.dirs),
            extensions_by_dir: listing.extensions_by_dir,
            python_roots: listing.python_roots,
            by_file_name: listing.by_file_name,
            dirs: listing.dirs,
            js_project,
            declared,
            files,
        }
    }

    /// The packages files declare where no directory spells them.
    pub fn declared(&self) -> &DeclaredPackages {
        &self.declared
    }

    /// Whether a resolver reads the file at `rel`, or may (a `tsconfig.json`
    /// extends another JSON file): a change to one makes a new resolver.
    pub fn reads(rel: &str) -> bool {
        const READ: &[&str] = &[
            "go.mod",
            "Cargo.toml",
            "package.json",
            "tsconfig.json",
            "jsconfig.json",
            "composer.json",
            "compile_commands.json",
        ];
        READ.contains(&rel.rsplit('/').next().unwrap_or("")) || rel.ends_with(".json")
    }

    /// Whether the resolver's files are exactly `paths`.
    pub fn holds_exactly(&self, paths: &HashSet<&str>) -> bool {
        self.files.len() == paths.len() && paths.iter().all(|p| self.files.contains(*p))
    }

    /// This resolver, with the packages as the files now declare them.
    pub fn into_declared(mut self, mut declared: DeclaredPackages) -> Resolver {
        declared.retain(|p| self.holds(p));
        self.declared = declared;
        self
    }

    /// Whether `path` is one of the resolver's files.
    pub fn holds(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// The same resolver, with the packages as the files now declare them.
    pub fn with_declared(&self, mut declared: DeclaredPackages) -> Resolver {
        declared.retain(|p| self.holds(p));
        Resolver {
            declared,
            ..self.clone()
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

    pub(super) fn file(&self, path: &str) -> Option<String> {
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
}
