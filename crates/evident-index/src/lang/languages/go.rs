//! The language table's row for Go.

use crate::lang::spec::{ImportResolution, LanguageSpec, Words, DEFAULTS};

const GO_QUERY: &str = include_str!("../../../queries/go.scm");

const GO_LOCALS: &str = include_str!("../../../queries/go-locals.scm");

/// Go.
pub(in crate::lang) const GO: LanguageSpec = LanguageSpec {
    name: "go",
    extensions: &["go"],
    grammar: || tree_sitter_go::LANGUAGE.into(),
    query_sources: &[GO_QUERY],
    locals_sources: &[GO_LOCALS],
    import_resolution: ImportResolution::GoModule,
    self_receivers: &["self", "this"],
    directory_is_package: true,
    builtins: Words::new(include_str!("../../../builtins/go.txt")),
    ..DEFAULTS
};
