; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(method_declaration) @scope
(constructor_declaration) @scope
(lambda_expression) @scope
(block) @scope
(for_statement) @scope
(enhanced_for_statement) @scope
(catch_clause) @scope

(formal_parameter name: (identifier) @local)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local))
(enhanced_for_statement name: (identifier) @local)
(catch_formal_parameter name: (identifier) @local)
(lambda_expression parameters: (identifier) @local)
(inferred_parameters (identifier) @local)
