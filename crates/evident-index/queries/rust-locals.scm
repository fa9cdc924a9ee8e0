; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_item) @scope
(closure_expression) @scope
(block) @scope

(parameter pattern: (identifier) @local)
(let_declaration pattern: (identifier) @local)
(tuple_pattern (identifier) @local)
(closure_parameters (identifier) @local)
(for_expression pattern: (identifier) @local)
(let_condition pattern: (_ (identifier) @local))
