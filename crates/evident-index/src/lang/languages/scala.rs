//! The language table's row for Scala.

use crate::lang::spec::{ImportResolution, LanguageSpec, Words, DEFAULTS};

const SCALA_QUERY: &str = include_str!("../../../queries/scala.scm");

const SCALA_LOCALS: &str = include_str!("../../../queries/scala-locals.scm");

/// Scala.
pub(in crate::lang) const SCALA: LanguageSpec = LanguageSpec {
    name: "scala",
    extensions: &["scala", "sc"],
    grammar: || tree_sitter_scala::LANGUAGE.into(),
    query_sources: &[SCALA_QUERY],
    locals_sources: &[SCALA_LOCALS],
    import_resolution: ImportResolution::JvmClass(&["scala", "java"]),
    constructors: &["apply"],
    implicit_this: true,
    self_receivers: &["this"],
    base_receivers: &["super"],
    directory_is_package: true,
    package_by_declaration: true,
    builtins: Words::new(include_str!("../../../builtins/scala.txt")),
    string_type: Some("String"),
    builtin_types: &["String", "List", "Seq", "Vector", "Map", "Set"],
    test_files: &["*Test.scala", "*Spec.scala", "*Suite.scala"],
    ..DEFAULTS
};
