//! The call graph's rows: what a resolution pass loads (files, definitions,
//! imports, assignments, call sites), what an incremental run notes before a
//! file's rows change, and the edges it writes. Loading streams rows to the
//! caller, which builds its in-memory tables without a copy of each row.

mod calls;
mod changes;
pub(crate) mod map_rows;
mod queries;
mod rows;
mod scopes;
mod seeing;
mod symbols;

#[cfg(test)]
pub(crate) use calls::every_call;
pub(crate) use calls::{
    all_calls_without_edges, call_count, calls_named_in, file_count, insert_argument_call,
    insert_edge, insert_external, mark_dirty_calls, take_dirty_calls,
};
pub(crate) use changes::{
    definition_keys, definition_surface, edges_into, files_of_classes_and_ancestors, flow_facts_of,
    import_rows, names_defined_in, remap_edges,
};
#[cfg(test)]
pub(crate) use queries::targets_sql;
pub(crate) use queries::{
    call_text, calls_inside, class_of_constructor, declarations_of, definition, definition_summary,
    edges_under, file_path_and_module, incoming_calls, incoming_count, incoming_files,
    incoming_in_file, last_segment, names_like, targets, unresolved_calls_named,
    NAMED_OR_QUALIFIED,
};
pub use rows::Target;
pub(crate) use rows::{
    ArgumentSite, CallOnLine, CallSite, DefinitionRow, ImportRow, InScope, IncomingCall,
    SymbolFilter, SymbolRow, TargetMatch,
};
pub(crate) use scopes::{
    binding_site, calls_on_line, definitions_exported_as, definitions_globbed,
    definitions_imported_as, definitions_in_scope, file_language, file_lines_and_module,
    import_modules_on_line, keyword_call_targets, module_imported_as, scope_at,
    unimported_top_level,
};
pub(crate) use seeing::{importers_closure, importers_spelling};
pub(crate) use symbols::{
    all_paths, for_each_assignment_in, for_each_declaration_defined, for_each_file_by_path,
    for_each_import, for_each_symbol, names_list_of, symbol_count,
};
