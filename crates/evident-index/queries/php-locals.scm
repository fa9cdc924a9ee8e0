; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_definition) @scope
(method_declaration) @scope
(anonymous_function) @scope
(arrow_function) @scope

(simple_parameter name: (variable_name) @local)
(property_promotion_parameter name: (variable_name) @local)
(assignment_expression left: (variable_name) @local)
(foreach_statement (variable_name) @local)
