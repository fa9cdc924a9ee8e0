; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_declaration) @scope
(function_definition) @scope
(block) @scope
(for_generic_clause) @scope
(for_numeric_clause) @scope

(parameters name: (identifier) @local)
(variable_declaration (assignment_statement (variable_list name: (identifier) @local)))
(variable_declaration (variable_list name: (identifier) @local))
(for_generic_clause (variable_list name: (identifier) @local))
(for_numeric_clause name: (identifier) @local)
