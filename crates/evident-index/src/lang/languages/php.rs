//! The language table's row for PHP.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const PHP_QUERY: &str = include_str!("../../../queries/php.scm");

const PHP_LOCALS: &str = include_str!("../../../queries/php-locals.scm");

/// PHP.
pub(in crate::lang) const PHP: LanguageSpec = LanguageSpec {
    name: "php",
    extensions: &["php", "phtml", "php8", "inc"],
    grammar: || tree_sitter_php::LANGUAGE_PHP.into(),
    query_sources: &[PHP_QUERY],
    locals_sources: &[PHP_LOCALS],
    separator: "\\",
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::PhpComposer,
    constructors: &["__construct"],
    self_receivers: &["$this", "self", "static"],
    base_receivers: &["parent"],
    class_names: &["static", "self"],
    inherited_constructors: true,
    builtins: Words::new(include_str!("../../../builtins/php.txt")),
    test_files: &["*Test.php"],
    ..DEFAULTS
};
