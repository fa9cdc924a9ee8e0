; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(method_declaration) @scope
(constructor_declaration) @scope
(local_function_statement) @scope
(lambda_expression) @scope
(block) @scope
(for_statement) @scope
(foreach_statement) @scope
(catch_clause) @scope

(parameter name: (identifier) @local)
(variable_declarator name: (identifier) @local)
(foreach_statement left: (identifier) @local)
(catch_declaration name: (identifier) @local)
(lambda_expression parameters: (implicit_parameter) @local)
