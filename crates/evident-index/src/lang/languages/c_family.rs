//! The language table's rows for C and C++, which share their
//! attribute macros.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

/// Attribute macros of C and C++ code (the Linux kernel's, compilers'),
/// blanked before parsing, like ctags' `-I` list.
const C_ATTRIBUTE_MACROS: &[&str] = &[
    "__init",
    "__exit",
    "__initdata",
    "__initconst",
    "__exitdata",
    "__ref",
    "__weak",
    "__user",
    "__kernel",
    "__iomem",
    "__percpu",
    "__rcu",
    "__force",
    "__must_check",
    "__always_inline",
    "__maybe_unused",
    "__always_unused",
    "__used",
    "__cold",
    "__pure",
    "__visible",
    "__read_mostly",
    "__ro_after_init",
    "__cacheline_aligned",
    "__cacheline_aligned_in_smp",
    "__packed",
    "__noreturn",
    "__sched",
    "__nocfi",
    "noinline",
    "notrace",
    "asmlinkage",
    "__cdecl",
    "__stdcall",
    "__fastcall",
];

const C_QUERY: &str = include_str!("../../../queries/c.scm");

const C_LOCALS: &str = include_str!("../../../queries/c-locals.scm");

const CPP_QUERY: &str = include_str!("../../../queries/cpp.scm");

const CPP_LOCALS: &str = include_str!("../../../queries/cpp-locals.scm");

/// C.
pub(in crate::lang) const C: LanguageSpec = LanguageSpec {
    name: "c",
    extensions: &["c", "h"],
    grammar: || tree_sitter_c::LANGUAGE.into(),
    query_sources: &[C_QUERY],
    locals_sources: &[C_LOCALS],
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::CInclude,
    builtins: Words::new(include_str!("../../../builtins/c.txt")),
    defined_in: &["c", "cpp"],
    fields_are_pointers: true,
    blank_identifiers: C_ATTRIBUTE_MACROS,
    includes_are_transitive: true,
    fallback: Some("cpp"),
    fallback_markers: &[
        "namespace ",
        "template<",
        "template <",
        "class ",
        "public:",
        "private:",
        "protected:",
        "using namespace ",
    ],
    test_files: &["*_unittest.c"],
    ..DEFAULTS
};

/// C++.
pub(in crate::lang) const CPP: LanguageSpec = LanguageSpec {
    name: "cpp",
    extensions: &[
        "cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp",
    ],
    grammar: || tree_sitter_cpp::LANGUAGE.into(),
    query_sources: &[CPP_QUERY],
    locals_sources: &[CPP_LOCALS],
    separator: "::",
    module_naming: ModuleNaming::Global,
    import_resolution: ImportResolution::CInclude,
    wrapper_kinds: &["template_declaration"],
    constructors: &["$class"],
    implicit_this: true,
    self_receivers: &["this"],
    builtins: Words::new(include_str!("../../../builtins/cpp.txt")),
    defined_in: &["cpp", "c"],
    blank_identifiers: C_ATTRIBUTE_MACROS,
    includes_are_transitive: true,
    test_files: &["*_unittest.cc", "*_unittest.cpp"],
    ..DEFAULTS
};
