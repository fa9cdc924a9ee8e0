//! The language table: everything evident knows about a language that is not
//! in its query file.
//!
//! Adding a language is one grammar crate, one `queries/<lang>.scm`, one row in
//! [`LANGUAGES`] and a fixture; no other code learns about it.

pub mod docs;
pub mod extract;
pub mod imports;
mod js_project;
mod languages;
pub mod locals;
pub mod members;
pub mod roles;
pub mod shown;
mod spec;
pub mod syntax;

pub use spec::{ImportResolution, LanguageSpec, ModuleBinding, ModuleNaming, Words};

use std::sync::OnceLock;

use tree_sitter::{Language as Grammar, Query};

/// Every language evident reads, in the order a path's extension is tried.
pub static LANGUAGES: &[LanguageSpec] = &[
    languages::PYTHON,
    languages::RUST,
    languages::JAVASCRIPT,
    languages::TYPESCRIPT,
    languages::TSX,
    languages::GO,
    languages::JAVA,
    languages::C,
    languages::CPP,
    languages::CSHARP,
    languages::RUBY,
    languages::PHP,
    languages::KOTLIN,
    languages::SWIFT,
    languages::SCALA,
    languages::BASH,
    languages::LUA,
];

impl LanguageSpec {
    pub fn grammar(&self) -> Grammar {
        (self.grammar)()
    }

    /// The compiled extraction query, built once per process.
    pub fn query(&self) -> &'static Query {
        static QUERIES: OnceLock<Vec<OnceLock<Query>>> = OnceLock::new();
        self.compiled(&QUERIES, self.query_sources, "queries")
    }

    /// The compiled locals query, built once per process; `None` when the
    /// language has none.
    pub fn locals_query(&self) -> Option<&'static Query> {
        static QUERIES: OnceLock<Vec<OnceLock<Query>>> = OnceLock::new();
        (!self.locals_sources.is_empty())
            .then(|| self.compiled(&QUERIES, self.locals_sources, "locals query"))
    }

    /// This language's cell of `cells`, compiled from `sources` on first use.
    fn compiled(
        &self,
        cells: &'static OnceLock<Vec<OnceLock<Query>>>,
        sources: &[&str],
        what: &str,
    ) -> &'static Query {
        let index = LANGUAGES
            .iter()
            .position(|l| l.name == self.name)
            .expect("spec comes from LANGUAGES");
        let cells = cells.get_or_init(|| LANGUAGES.iter().map(|_| OnceLock::new()).collect());
        cells[index].get_or_init(|| {
            Query::new(&self.grammar(), &sources.concat())
                .unwrap_or_else(|e| panic!("{what} for {} do not compile: {e}", self.name))
        })
    }
}

/// The language of a path, by extension.
pub fn for_path(path: &str) -> Option<&'static LanguageSpec> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES
        .iter()
        .find(|l| l.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// Every separator the languages' qualified names use (`.`, `::`, `\`).
pub fn qualified_separators() -> Vec<&'static str> {
    let mut separators: Vec<&'static str> = LANGUAGES.iter().map(|l| l.separator).collect();
    separators.sort_unstable();
    separators.dedup();
    separators
}

/// The extraction rules of this build: its version and a hash of every
/// language's queries and of what its parser is shown. Stored facts come
/// from these rules, so an index written under others is built again (an
/// upgrade of evident that changes them must not leave old facts behind).
pub fn rules_signature() -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for spec in LANGUAGES {
        hasher.update(spec.name.as_bytes());
        for source in spec.query_sources {
            hasher.update(source.as_bytes());
        }
        hasher.update(spec.lines_start_members);
        for word in spec.blank_identifiers {
            hasher.update(word.as_bytes());
        }
    }
    format!("{} {:016x}", env!("CARGO_PKG_VERSION"), hasher.digest())
}

/// A language by its stored name.
pub fn by_name(name: &str) -> Option<&'static LanguageSpec> {
    LANGUAGES.iter().find(|l| l.name == name)
}

/// The module path of a file, the prefix of its qualified names, unless the
/// file declares a package (`@package`), which takes precedence.
pub fn module_path(spec: &LanguageSpec, rel_path: &str) -> String {
    module_path_in(spec, rel_path, None)
}

/// The crate name a stored module path starts with (`evident_index` in
/// `evident_index::store`), for languages whose module paths carry one.
pub fn crate_name_of_module<'m>(spec: &LanguageSpec, module: &'m str) -> Option<&'m str> {
    match spec.module_naming {
        ModuleNaming::RustCrate => module
            .split(spec.separator)
            .next()
            .filter(|c| *c != "crate"),
        _ => None,
    }
}

/// [`module_path`], with the name of the Rust crate the file belongs to (from
/// its `Cargo.toml`) in place of `crate`, so two crates' modules differ.
pub fn module_path_in(spec: &LanguageSpec, rel_path: &str, crate_name: Option<&str>) -> String {
    let stem = rel_path.rsplit_once('.').map_or(rel_path, |(stem, _)| stem);
    match spec.module_naming {
        ModuleNaming::Dotted => {
            let dotted = stem.replace('/', ".");
            for package in spec.package_stems {
                if dotted == *package {
                    return String::new();
                }
                if let Some(dir) = dotted.strip_suffix(&format!(".{package}")) {
                    return dir.to_string();
                }
            }
            dotted
        }
        ModuleNaming::RustCrate => {
            let parts: Vec<&str> = stem.split('/').collect();
            // Cargo's layout: `src/` holds the crate's modules; each file directly
            // in `tests/`, `benches/` or `examples/` is a crate root of its own.
            let root = parts
                .iter()
                .rposition(|p| matches!(*p, "src" | "tests" | "benches" | "examples"));
            let mut segments: Vec<&str> = match root {
                Some(i) if parts[i] != "src" && parts.len() == i + 2 => Vec::new(),
                Some(i) => parts[i + 1..].to_vec(),
                None => parts.clone(),
            };
            if matches!(segments.last(), Some(&"lib") | Some(&"main") | Some(&"mod")) {
                segments.pop();
            }
            std::iter::once(crate_name.unwrap_or("crate"))
                .chain(segments)
                .collect::<Vec<_>>()
                .join("::")
        }
        ModuleNaming::Path => stem.to_string(),
        ModuleNaming::Global => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        let mut errors = Vec::new();
        for spec in LANGUAGES {
            for (what, sources) in [
                ("query", spec.query_sources),
                ("locals", spec.locals_sources),
            ] {
                if let Err(e) = Query::new(&spec.grammar(), &sources.concat()) {
                    errors.push(format!("{} {what}: {e}", spec.name));
                }
            }
        }
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn module_paths_follow_each_convention() {
        let py = by_name("python").unwrap();
        assert_eq!(module_path(py, "pkg/mod.py"), "pkg.mod");
        assert_eq!(module_path(py, "pkg/__init__.py"), "pkg");
        assert_eq!(module_path(py, "__init__.py"), "");
        let rs = by_name("rust").unwrap();
        assert_eq!(module_path(rs, "crates/x/src/lib.rs"), "crate");
        assert_eq!(module_path(rs, "crates/x/src/a/mod.rs"), "crate::a");
        assert_eq!(module_path(rs, "src/a/b.rs"), "crate::a::b");
        assert_eq!(module_path(rs, "crates/x/tests/indexing.rs"), "crate");
        assert_eq!(
            module_path(rs, "crates/x/tests/common/mod.rs"),
            "crate::common"
        );
        assert_eq!(module_path(rs, "examples/demo.rs"), "crate");
        let ts = by_name("typescript").unwrap();
        assert_eq!(module_path(ts, "src/util/math.ts"), "src/util/math");
    }

    #[test]
    fn extensions_pick_languages() {
        assert_eq!(for_path("a/b.tsx").unwrap().name, "tsx");
        assert_eq!(for_path("a/B.JAVA").unwrap().name, "java");
        assert!(for_path("Makefile").is_none());
    }
}
