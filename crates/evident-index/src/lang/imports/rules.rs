//! Each language's import rule, from the module text as written to a
//! repository path.

use super::paths::{join, normalize, parent_dir, JS_EXTENSIONS};
use super::resolver::Resolver;

impl Resolver {
    /// `#include "x.h"`: beside the including file, then the include
    /// directories; `<x.h>` only the include directories (else the system's).
    pub(super) fn c_include(&self, importer: &str, module: &str) -> Option<String> {
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
    pub(super) fn script(
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
    pub(super) fn lua(&self, importer: &str, module: &str) -> Option<String> {
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
    pub(super) fn dir_of_with_suffix(&self, suffix: &str, extensions: &[&str]) -> Option<String> {
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
    pub(super) fn file_with_suffix(&self, file_name: &str, suffix: &str) -> Option<String> {
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
    pub(super) fn csharp(&self, module: &str, name: Option<&str>) -> Option<String> {
        if let Some(name) = name {
            let suffix = join(&module.replace('.', "/"), &format!("{name}.cs"));
            return self
                .file_with_suffix(&format!("{name}.cs"), &suffix)
                .or_else(|| {
                    let in_project = format!("{module}/{name}.cs");
                    self.file_with_suffix(&format!("{name}.cs"), &in_project)
                })
                .or_else(|| self.declared.class_file(module, name, &["cs"]))
                .or_else(|| self.csharp(&format!("{module}.{name}"), None));
        }
        self.dir_of_with_suffix(&module.replace('.', "/"), &["cs"])
            .or_else(|| self.dir_of_with_suffix(module, &["cs"]))
            .or_else(|| self.declared.place(module, &["cs"]))
    }

    /// `use A\B\C` through the PSR-4 map (else by path suffix); a
    /// `require`/`include` path beside the file, then from the root.
    pub(super) fn php(&self, importer: &str, module: &str, name: Option<&str>) -> Option<String> {
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
    pub(super) fn swift(&self, module: &str) -> Option<String> {
        let module = module.split('.').next().unwrap_or(module);
        self.dir_of_with_suffix(&format!("Sources/{module}"), &["swift"])
            .or_else(|| self.dir_of_with_suffix(module, &["swift"]))
    }

    pub(super) fn python_module(&self, base: &str, dotted: &str) -> Option<String> {
        let rel = join(base, &dotted.replace('.', "/"));
        self.file(&format!("{rel}.py"))
            .or_else(|| self.file(&format!("{rel}.pyi")))
            .or_else(|| self.file(&join(&rel, "__init__.py")))
    }

    /// Whether `dir` is a Python package: it holds an `__init__.py` (or a
    /// stub's `__init__.pyi`).
    fn is_python_package(&self, dir: &str) -> bool {
        self.file(&join(dir, "__init__.py")).is_some()
            || self.file(&join(dir, "__init__.pyi")).is_some()
    }

    pub(super) fn python_in(&self, base: &str, dotted: &str, name: Option<&str>) -> Option<String> {
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
            // `from . import VERSION`: a name the package itself defines.
            return self
                .file(&join(base, "__init__.py"))
                .or_else(|| self.file(&join(base, "__init__.pyi")));
        }
        self.python_module(base, dotted)
    }

    pub(super) fn python(
        &self,
        importer: &str,
        module: &str,
        name: Option<&str>,
    ) -> Option<String> {
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
        // The importer's own directory is on `sys.path` only when it is a
        // script's (run as `python dir/tool.py`, or a test directory pytest
        // prepends): in a package, `import typing` is the top-level module
        // (PEP 328), never the package's own `typing.py`.
        let own_dir = parent_dir(importer);
        let script_dir = (!self.is_python_package(own_dir)).then_some(own_dir);
        std::iter::once("")
            .chain(script_dir)
            .chain(self.python_roots.iter().map(String::as_str))
            .find_map(|base| self.python_in(base, dotted, name))
    }

    /// The directory holding a Rust file's child modules.
    pub(super) fn rust_module_dir(file: &str) -> String {
        let name = file.rsplit('/').next().unwrap_or(file);
        if matches!(name, "lib.rs" | "main.rs" | "mod.rs") || Self::is_rust_crate_root(file) {
            parent_dir(file).to_string()
        } else {
            file.trim_end_matches(".rs").to_string()
        }
    }

    pub(super) fn rust_crate_dir(file: &str) -> Option<String> {
        let parts: Vec<&str> = file.split('/').collect();
        let root = parts
            .iter()
            .rposition(|p| matches!(*p, "src" | "tests" | "benches" | "examples"))?;
        Some(parts[..=root].join("/"))
    }

    /// A file directly in `tests/`, `benches/` or `examples/` is a crate root.
    pub(super) fn is_rust_crate_root(file: &str) -> bool {
        let dir = parent_dir(file);
        let last = dir.rsplit('/').next().unwrap_or(dir);
        matches!(last, "tests" | "benches" | "examples")
    }

    pub(super) fn rust(&self, importer: &str, module: &str, name: Option<&str>) -> Option<String> {
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

    pub(super) fn javascript(&self, importer: &str, module: &str) -> Option<String> {
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
    pub(super) fn javascript_file(&self, target: &str) -> Option<String> {
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

    pub(super) fn go(&self, import_path: &str) -> Option<String> {
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
    pub(super) fn jvm(
        &self,
        module: &str,
        name: Option<&str>,
        extensions: &[&str],
    ) -> Option<String> {
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
        // Languages with more than one extension (Kotlin's and Scala's
        // top-level functions, several classes a file) import from files
        // not named after the class.
        let any_file = extensions.len() > 1;
        match name {
            Some(name) => class_path(&format!("{module}.{name}"))
                .or_else(|| class_path(module))
                .or_else(|| package_dir(module).filter(|_| any_file))
                .or_else(|| self.declared_jvm(module, name, extensions, any_file)),
            // A wildcard import names a package: its directory.
            None => package_dir(module).or_else(|| self.declared.place(module, extensions)),
        }
    }

    /// `a.b.C` by the packages files declare: `C.<ext>` of package `a.b`,
    /// the file of an outer class (`a.b.C.Inner`), else the package itself.
    fn declared_jvm(
        &self,
        module: &str,
        name: &str,
        extensions: &[&str],
        any_file: bool,
    ) -> Option<String> {
        let outer = || {
            let (package, class) = module.rsplit_once('.')?;
            self.declared.class_file(package, class, extensions)
        };
        self.declared
            .class_file(module, name, extensions)
            .or_else(outer)
            .or_else(|| {
                any_file
                    .then(|| self.declared.place(module, extensions))
                    .flatten()
            })
    }
}
