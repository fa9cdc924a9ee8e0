//! The language table's row for Java.

use crate::lang::spec::{ImportResolution, LanguageSpec, Words, DEFAULTS};

const JAVA_QUERY: &str = include_str!("../../../queries/java.scm");

const JAVA_LOCALS: &str = include_str!("../../../queries/java-locals.scm");

/// Java.
pub(in crate::lang) const JAVA: LanguageSpec = LanguageSpec {
    name: "java",
    extensions: &["java"],
    grammar: || tree_sitter_java::LANGUAGE.into(),
    query_sources: &[JAVA_QUERY],
    locals_sources: &[JAVA_LOCALS],
    import_resolution: ImportResolution::JvmClass(&["java"]),
    comment_kinds: &["line_comment", "block_comment"],
    constructors: &["$class"],
    implicit_this: true,
    self_receivers: &["this"],
    base_receivers: &["super"],
    directory_is_package: true,
    package_by_declaration: true,
    builtins: Words::new(include_str!("../../../builtins/java.txt")),
    string_type: Some("String"),
    builtin_types: &["String", "StringBuilder"],
    test_files: &["*Test.java", "*Tests.java", "*IT.java", "Test*.java"],
    ..DEFAULTS
};
