; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(function_definition) @scope

(declaration_command (variable_assignment name: (variable_name) @local))
