//! The language table's row for Rust.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const RS_QUERY: &str = include_str!("../../../queries/rust.scm");

const RS_LOCALS: &str = include_str!("../../../queries/rust-locals.scm");

/// Rust.
pub(in crate::lang) const RUST: LanguageSpec = LanguageSpec {
    name: "rust",
    extensions: &["rs"],
    grammar: || tree_sitter_rust::LANGUAGE.into(),
    query_sources: &[RS_QUERY],
    locals_sources: &[RS_LOCALS],
    separator: "::",
    module_naming: ModuleNaming::RustCrate,
    import_resolution: ImportResolution::Rust,
    comment_kinds: &["line_comment", "block_comment"],
    doc_skip_kinds: &["attribute_item"],
    self_receivers: &["self", "Self"],
    base_receivers: &["super"],
    class_names: &["Self"],
    module_path_heads: &["crate", "super", "self"],
    package_stems: &["mod", "lib"],
    builtins: Words::new(include_str!("../../../builtins/rust.txt")),
    string_type: Some("str"),
    builtin_types: &["String", "Vec"],
    test_files: &["tests.rs"],
    ..DEFAULTS
};
