; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_declaration) @scope
(init_declaration) @scope
(lambda_literal) @scope
(statements) @scope
(for_statement) @scope

(parameter name: (simple_identifier) @local)
(property_declaration name: (pattern bound_identifier: (simple_identifier) @local))
(for_statement item: (pattern bound_identifier: (simple_identifier) @local))
(lambda_parameter name: (simple_identifier) @local)
