; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_declaration) @scope
(method_declaration) @scope
(func_literal) @scope
(block) @scope

(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(range_clause left: (expression_list (identifier) @local))
