; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_definition) @scope
(compound_statement) @scope
(for_statement) @scope

(parameter_declaration declarator: (identifier) @local)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local))
(parameter_declaration declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local))))
(compound_statement (declaration declarator: (identifier) @local))
(compound_statement (declaration declarator: (init_declarator declarator: (identifier) @local)))
(compound_statement (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local))))
(for_statement initializer: (declaration declarator: (init_declarator declarator: (identifier) @local)))
