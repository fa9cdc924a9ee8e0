; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_declaration) @scope
(function_expression) @scope
(generator_function_declaration) @scope
(arrow_function) @scope
(method_definition) @scope
(statement_block) @scope
(for_statement) @scope
(for_in_statement) @scope
(catch_clause) @scope

(arrow_function parameter: (identifier) @local)
(variable_declarator name: (identifier) @local)
(object_pattern (shorthand_property_identifier_pattern) @local)
(object_pattern (pair_pattern value: (identifier) @local))
(array_pattern (identifier) @local)
(rest_pattern (identifier) @local)
(for_in_statement left: (identifier) @local)
(catch_clause parameter: (identifier) @local)
