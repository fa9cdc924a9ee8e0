; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_declaration) @scope
(secondary_constructor) @scope
(lambda_literal) @scope
(anonymous_function) @scope
(block) @scope
(for_statement) @scope
(catch_block) @scope

(parameter (identifier) @local)
(property_declaration (variable_declaration (identifier) @local))
(for_statement (variable_declaration (identifier) @local))
(lambda_parameters (variable_declaration (identifier) @local))
(catch_block (identifier) @local)
