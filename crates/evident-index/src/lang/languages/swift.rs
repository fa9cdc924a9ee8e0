//! The language table's row for Swift.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const SWIFT_QUERY: &str = include_str!("../../../queries/swift.scm");

const SWIFT_LOCALS: &str = include_str!("../../../queries/swift-locals.scm");

/// Swift.
pub(in crate::lang) const SWIFT: LanguageSpec = LanguageSpec {
    name: "swift",
    extensions: &["swift"],
    grammar: || tree_sitter_swift::LANGUAGE.into(),
    query_sources: &[SWIFT_QUERY],
    locals_sources: &[SWIFT_LOCALS],
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::SwiftModule,
    comment_kinds: &["comment", "multiline_comment"],
    constructors: &["init"],
    implicit_this: true,
    self_receivers: &["self", "Self"],
    base_receivers: &["super"],
    class_names: &["Self"],
    directory_is_package: true,
    builtins: Words::new(include_str!("../../../builtins/swift.txt")),
    string_type: Some("String"),
    builtin_types: &["String", "Array", "Dictionary", "Set"],
    test_files: &["*Tests.swift", "*Test.swift"],
    ..DEFAULTS
};
