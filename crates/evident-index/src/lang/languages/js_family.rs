//! The language table's rows for the JavaScript family: JavaScript,
//! TypeScript and TSX share their base query, builtins and conventions.

use crate::lang::spec::{ImportResolution, LanguageSpec, Words, DEFAULTS};

const JS_QUERY: &str = include_str!("../../../queries/javascript.scm");

const JS_ONLY_QUERY: &str = include_str!("../../../queries/javascript-only.scm");

const TS_QUERY: &str = include_str!("../../../queries/typescript.scm");

const JS_LOCALS: &str = include_str!("../../../queries/javascript-locals.scm");

const JS_ONLY_LOCALS: &str = include_str!("../../../queries/javascript-only-locals.scm");

const TS_LOCALS: &str = include_str!("../../../queries/typescript-locals.scm");

/// JavaScript's (and TypeScript's) builtin data types: literals and values
/// of these have builtin methods.
const JS_BUILTIN_TYPES: &[&str] = &[
    "Array", "String", "Map", "Set", "WeakMap", "WeakSet", "Promise", "Date", "RegExp", "Number",
    "Boolean",
];

/// JavaScript.
pub(in crate::lang) const JAVASCRIPT: LanguageSpec = LanguageSpec {
    name: "javascript",
    extensions: &["js", "jsx", "mjs", "cjs"],
    grammar: || tree_sitter_javascript::LANGUAGE.into(),
    query_sources: &[JS_QUERY, JS_ONLY_QUERY],
    locals_sources: &[JS_LOCALS, JS_ONLY_LOCALS],
    import_resolution: ImportResolution::JsRelative,
    wrapper_kinds: &["export_statement"],
    constructors: &["constructor"],
    self_receivers: &["this", "self"],
    base_receivers: &["super"],
    package_stems: &["index"],
    inherited_constructors: true,
    builtins: Words::new(include_str!("../../../builtins/javascript.txt")),
    string_type: Some("String"),
    builtin_types: JS_BUILTIN_TYPES,
    module_self_names: &["exports"],
    function_constructors: true,
    ..DEFAULTS
};

/// TypeScript.
pub(in crate::lang) const TYPESCRIPT: LanguageSpec = LanguageSpec {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    query_sources: &[JS_QUERY, TS_QUERY],
    locals_sources: &[JS_LOCALS, TS_LOCALS],
    import_resolution: ImportResolution::JsRelative,
    wrapper_kinds: &["export_statement"],
    constructors: &["constructor"],
    self_receivers: &["this", "self"],
    base_receivers: &["super"],
    package_stems: &["index"],
    inherited_constructors: true,
    builtins: Words::new(include_str!("../../../builtins/javascript.txt")),
    string_type: Some("String"),
    builtin_types: JS_BUILTIN_TYPES,
    interface_files: &["*.d.ts", "*.d.mts", "*.d.cts"],
    fields_declared: true,
    lines_start_members: b"<",
    module_keywords: &["import", "export"],
    ..DEFAULTS
};

/// TSX: TypeScript with JSX, read by its own grammar; no type stubs.
pub(in crate::lang) const TSX: LanguageSpec = LanguageSpec {
    name: "tsx",
    extensions: &["tsx"],
    grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    interface_files: &[],
    // JSX children open lines with `<`.
    lines_start_members: &[],
    ..TYPESCRIPT
};
