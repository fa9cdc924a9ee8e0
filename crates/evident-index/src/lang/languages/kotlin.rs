//! The language table's row for Kotlin.

use crate::lang::spec::{ImportResolution, LanguageSpec, Words, DEFAULTS};

const KOTLIN_QUERY: &str = include_str!("../../../queries/kotlin.scm");

const KOTLIN_LOCALS: &str = include_str!("../../../queries/kotlin-locals.scm");

/// Kotlin.
pub(in crate::lang) const KOTLIN: LanguageSpec = LanguageSpec {
    name: "kotlin",
    extensions: &["kt", "kts"],
    grammar: || tree_sitter_kotlin_ng::LANGUAGE.into(),
    query_sources: &[KOTLIN_QUERY],
    locals_sources: &[KOTLIN_LOCALS],
    import_resolution: ImportResolution::JvmClass(&["kt", "kts", "java"]),
    comment_kinds: &["line_comment", "block_comment"],
    doc_skip_kinds: &["annotation"],
    constructors: &["$class"],
    implicit_this: true,
    self_receivers: &["this"],
    base_receivers: &["super"],
    directory_is_package: true,
    package_by_declaration: true,
    builtins: Words::new(include_str!("../../../builtins/kotlin.txt")),
    string_type: Some("String"),
    builtin_types: &["String", "StringBuilder"],
    test_files: &["*Test.kt", "*Tests.kt"],
    ..DEFAULTS
};
