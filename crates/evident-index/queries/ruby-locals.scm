; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
(method) @scope
(singleton_method) @scope
(block) @scope
(do_block) @scope
(lambda) @scope

(method_parameters (identifier) @local)
(optional_parameter name: (identifier) @local)
(keyword_parameter name: (identifier) @local)
(block_parameters (identifier) @local)
(assignment left: (identifier) @local)
