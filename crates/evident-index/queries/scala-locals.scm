; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_definition) @scope
(lambda_expression) @scope
(block) @scope
(case_clause) @scope

(parameter name: (identifier) @local)
(block (val_definition pattern: (identifier) @local))
(block (var_definition pattern: (identifier) @local))
(bindings (binding name: (identifier) @local))
(case_clause pattern: (identifier) @local)
