//! The language table's row for Python.

use crate::lang::spec::{
    ImportResolution, LanguageSpec, ModuleBinding, ModuleNaming, Words, DEFAULTS,
};

const PY_QUERY: &str = include_str!("../../../queries/python.scm");

const PY_LOCALS: &str = include_str!("../../../queries/python-locals.scm");

/// Python.
pub(in crate::lang) const PYTHON: LanguageSpec = LanguageSpec {
    name: "python",
    extensions: &["py", "pyi"],
    grammar: || tree_sitter_python::LANGUAGE.into(),
    query_sources: &[PY_QUERY],
    locals_sources: &[PY_LOCALS],
    module_naming: ModuleNaming::Dotted,
    import_resolution: ImportResolution::Python,
    comment_kinds: &["comment"],
    wrapper_kinds: &["decorated_definition"],
    module_binding: ModuleBinding::FirstSegment,
    constructors: &["__init__"],
    class_body_is_scope: true,
    self_receivers: &["self", "cls"],
    base_receivers: &["super"],
    class_names: &["cls"],
    package_stems: &["__init__"],
    inherited_constructors: true,
    glob_leaves_private: true,
    builtins: Words::new(include_str!("../../../builtins/python.txt")),
    string_type: Some("str"),
    function_types: &["Callable"],
    builtin_types: &[
        "str",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "bytes",
        "bytearray",
        "int",
        "float",
        "complex",
        "bool",
        "range",
        "memoryview",
    ],
    call_method: Some("__call__"),
    // `@overload` signatures declare what the implementation after them defines.
    defined_in: &["python"],
    test_files: &["tests.py"],
    interface_files: &["*.pyi"],
    ..DEFAULTS
};
