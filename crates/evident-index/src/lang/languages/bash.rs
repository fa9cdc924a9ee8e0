//! The language table's row for Bash.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const BASH_QUERY: &str = include_str!("../../../queries/bash.scm");

const BASH_LOCALS: &str = include_str!("../../../queries/bash-locals.scm");

/// Bash.
pub(in crate::lang) const BASH: LanguageSpec = LanguageSpec {
    name: "bash",
    extensions: &["sh", "bash"],
    grammar: || tree_sitter_bash::LANGUAGE.into(),
    query_sources: &[BASH_QUERY],
    locals_sources: &[BASH_LOCALS],
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::ShellSource,
    comment_kinds: &["comment"],
    builtins: Words::new(include_str!("../../../builtins/bash.txt")),
    commands_are_external: true,
    ..DEFAULTS
};
