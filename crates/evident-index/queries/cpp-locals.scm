; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_definition) @scope
(lambda_expression) @scope
(compound_statement) @scope
(for_statement) @scope
(for_range_loop) @scope

(parameter_declaration declarator: (identifier) @local)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local))
(parameter_declaration declarator: (reference_declarator (identifier) @local))
(compound_statement (declaration declarator: (identifier) @local))
(compound_statement (declaration declarator: (init_declarator declarator: (identifier) @local)))
(compound_statement (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local))))
(for_range_loop declarator: (identifier) @local)
