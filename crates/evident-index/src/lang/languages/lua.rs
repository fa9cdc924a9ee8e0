//! The language table's row for Lua.

use crate::lang::spec::{ImportResolution, LanguageSpec, ModuleNaming, Words, DEFAULTS};

const LUA_QUERY: &str = include_str!("../../../queries/lua.scm");

const LUA_LOCALS: &str = include_str!("../../../queries/lua-locals.scm");

/// Lua.
pub(in crate::lang) const LUA: LanguageSpec = LanguageSpec {
    name: "lua",
    extensions: &["lua"],
    grammar: || tree_sitter_lua::LANGUAGE.into(),
    query_sources: &[LUA_QUERY],
    locals_sources: &[LUA_LOCALS],
    module_naming: ModuleNaming::Dotted,
    import_resolution: ImportResolution::LuaModule,
    comment_kinds: &["comment"],
    self_receivers: &["self"],
    package_stems: &["init"],
    builtins: Words::new(include_str!("../../../builtins/lua.txt")),
    string_type: Some("string"),
    test_files: &["*_spec.lua"],
    ..DEFAULTS
};
