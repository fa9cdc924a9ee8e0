//! Packages and namespaces as files declare them (`package a.b`,
//! `namespace A.B`), for the languages where a file belongs to the package
//! it declares wherever it lies: an import of the package finds its files
//! by that declaration when no directory spells the name.
//!
//! Only files whose directory does not mirror their package are kept: a
//! mirrored one the path rules already find, so a project laid out the
//! usual way costs nothing here, and adding a file to it changes nothing.

use std::collections::BTreeMap;

use super::paths::parent_dir;
use crate::lang::{self, LanguageSpec};

/// Declared package → its files that no directory rule finds, by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeclaredPackages {
    files: BTreeMap<String, Vec<String>>,
}

impl DeclaredPackages {
    /// From the index's `(path, language, module)` rows: the module a file
    /// of such a language stores is the package it declares, when it has one.
    pub fn from_rows<I, S>(rows: I) -> DeclaredPackages
    where
        I: IntoIterator<Item = (S, S, S)>,
        S: AsRef<str>,
    {
        let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (path, lang_name, module) in rows {
            let (path, module) = (path.as_ref(), module.as_ref());
            let Some(spec) = lang::by_name(lang_name.as_ref()) else {
                continue;
            };
            if declared_elsewhere(spec, path, module) {
                files
                    .entry(module.to_string())
                    .or_default()
                    .push(path.to_string());
            }
        }
        for paths in files.values_mut() {
            paths.sort();
        }
        DeclaredPackages { files }
    }

    /// Keeps only the files `keep` accepts (those of the run's file set).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        for paths in self.files.values_mut() {
            paths.retain(|p| keep(p));
        }
        self.files.retain(|_, paths| !paths.is_empty());
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file of `package` named `class` with one of `extensions`
    /// (`C.kt` for `a.b.C`).
    pub(super) fn class_file(
        &self,
        package: &str,
        class: &str,
        extensions: &[&str],
    ) -> Option<String> {
        self.of(package, extensions)
            .find(|p| {
                let name = p.rsplit('/').next().unwrap_or(p);
                extensions.iter().any(|e| name == format!("{class}.{e}"))
            })
            .map(str::to_string)
    }

    /// Where `package` lives: its one file, else the directory holding most
    /// of its files (the first in path order on a tie). A package spread
    /// over several directories is reached through that one; the call
    /// graph finds the rest by their declaration.
    pub(super) fn place(&self, package: &str, extensions: &[&str]) -> Option<String> {
        let paths: Vec<&str> = self.of(package, extensions).collect();
        if let [only] = paths.as_slice() {
            return Some(only.to_string());
        }
        let mut by_dir: BTreeMap<&str, usize> = BTreeMap::new();
        for path in &paths {
            *by_dir.entry(parent_dir(path)).or_default() += 1;
        }
        let most = by_dir.values().copied().max()?;
        by_dir
            .into_iter()
            .find(|(_, n)| *n == most)
            .map(|(dir, _)| dir.to_string())
    }

    /// A line per package and file, for noticing a change between runs.
    pub fn signature(&self) -> String {
        self.files
            .iter()
            .flat_map(|(package, paths)| paths.iter().map(move |p| format!("{package}={p}")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn of<'s>(&'s self, package: &str, extensions: &'s [&str]) -> impl Iterator<Item = &'s str> {
        self.files
            .get(package)
            .into_iter()
            .flatten()
            .map(String::as_str)
            .filter(move |p| {
                let ext = p.rsplit_once('.').map_or("", |(_, e)| e);
                extensions.is_empty() || extensions.contains(&ext)
            })
    }
}

/// Whether the module stored for a file of `spec` is a package it declares
/// and that its directory does not spell (`a/b/` or `a.b/` for `a.b`).
pub fn declared_elsewhere(spec: &LanguageSpec, path: &str, module: &str) -> bool {
    if !spec.package_by_declaration || module.is_empty() || module.contains('/') {
        return false;
    }
    if module == lang::module_path(spec, path) {
        return false;
    }
    let dir = parent_dir(path);
    let spelled = |suffix: &str| dir == suffix || dir.ends_with(&format!("/{suffix}"));
    !(spelled(&module.replace('.', "/")) || spelled(module))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packages(rows: &[(&str, &str, &str)]) -> DeclaredPackages {
        DeclaredPackages::from_rows(rows.iter().copied())
    }

    #[test]
    fn only_files_whose_directory_does_not_spell_their_package_count() {
        let p = packages(&[
            (
                "src/main/kotlin/com/acme/util/Text.kt",
                "kotlin",
                "com.acme.util",
            ),
            ("src/main/kotlin/util/Strings.kt", "kotlin", "com.acme.util"),
            ("src/Acme.Core/Models/User.cs", "csharp", "Acme.Core.Models"),
            ("src/Acme.Core/Core.cs", "csharp", "Acme.Core"),
            ("go/util/x.go", "go", "other"),
            ("lib/top.py", "python", "lib.top"),
        ]);
        assert_eq!(
            p.signature(),
            "Acme.Core.Models=src/Acme.Core/Models/User.cs\n\
             com.acme.util=src/main/kotlin/util/Strings.kt"
        );
    }

    #[test]
    fn a_class_is_its_file_and_a_package_its_largest_directory() {
        let p = packages(&[
            ("a/One.kt", "kotlin", "x.y"),
            ("b/Two.kt", "kotlin", "x.y"),
            ("b/Three.kt", "kotlin", "x.y"),
            ("c/Only.scala", "scala", "z"),
        ]);
        assert_eq!(
            p.class_file("x.y", "One", &["kt"]).as_deref(),
            Some("a/One.kt")
        );
        assert_eq!(p.class_file("x.y", "One", &["scala"]), None);
        assert_eq!(p.place("x.y", &["kt"]).as_deref(), Some("b"));
        assert_eq!(p.place("z", &["scala"]).as_deref(), Some("c/Only.scala"));
        assert_eq!(p.place("nothing", &[]), None);
    }
}
