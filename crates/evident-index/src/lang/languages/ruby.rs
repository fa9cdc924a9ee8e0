//! The language table's row for Ruby.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const RUBY_QUERY: &str = include_str!("../../../queries/ruby.scm");

const RUBY_LOCALS: &str = include_str!("../../../queries/ruby-locals.scm");

/// Ruby.
pub(in crate::lang) const RUBY: LanguageSpec = LanguageSpec {
    name: "ruby",
    extensions: &["rb", "rake", "gemspec"],
    grammar: || tree_sitter_ruby::LANGUAGE.into(),
    query_sources: &[RUBY_QUERY],
    locals_sources: &[RUBY_LOCALS],
    separator: "::",
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::RubyRequire,
    comment_kinds: &["comment"],
    constructors: &["initialize"],
    implicit_this: true,
    self_receivers: &["self"],
    base_receivers: &["super"],
    class_names: &["new"],
    inherited_constructors: true,
    builtins: Words::new(include_str!("../../../builtins/ruby.txt")),
    string_type: Some("String"),
    builtin_types: &["String", "Array", "Hash", "Integer", "Float"],
    test_files: &["*_spec.rb"],
    ..DEFAULTS
};
