//! The language table's row for C#.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const CSHARP_QUERY: &str = include_str!("../../../queries/c-sharp.scm");

const CSHARP_LOCALS: &str = include_str!("../../../queries/c-sharp-locals.scm");

/// C#.
pub(in crate::lang) const CSHARP: LanguageSpec = LanguageSpec {
    name: "csharp",
    extensions: &["cs"],
    grammar: || tree_sitter_c_sharp::LANGUAGE.into(),
    query_sources: &[CSHARP_QUERY],
    locals_sources: &[CSHARP_LOCALS],
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::CSharpNamespace,
    doc_skip_kinds: &["attribute_list"],
    constructors: &["$class"],
    implicit_this: true,
    self_receivers: &["this"],
    base_receivers: &["base"],
    directory_is_package: true,
    package_by_declaration: true,
    builtins: Words::new(include_str!("../../../builtins/csharp.txt")),
    string_type: Some("String"),
    builtin_types: &["String", "List", "Dictionary", "StringBuilder"],
    test_files: &["*Test.cs", "*Tests.cs"],
    ..DEFAULTS
};
