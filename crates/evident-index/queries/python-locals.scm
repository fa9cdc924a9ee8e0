; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
; @scope: a node whose bindings are local to it; @local: a binding name;
; @global: a name the scope declares to live outside it.
(function_definition) @scope
; A class body binds names for itself, not for the methods in it.
(class_definition) @scope.class
(lambda) @scope
(list_comprehension) @scope
(set_comprehension) @scope
(dictionary_comprehension) @scope
(generator_expression) @scope

(parameters (identifier) @local)
(default_parameter name: (identifier) @local)
(typed_parameter (identifier) @local)
(typed_default_parameter name: (identifier) @local)
(list_splat_pattern (identifier) @local)
(dictionary_splat_pattern (identifier) @local)
(lambda_parameters (identifier) @local)
(assignment left: (identifier) @local)
(assignment left: (pattern_list (identifier) @local))
(assignment left: (tuple_pattern (identifier) @local))
(assignment left: (list_pattern (identifier) @local))
(augmented_assignment left: (identifier) @local)
(for_statement left: (identifier) @local)
(for_statement left: (pattern_list (identifier) @local))
(for_statement left: (tuple_pattern (identifier) @local))
(for_in_clause left: (identifier) @local)
(for_in_clause left: (pattern_list (identifier) @local))
(for_in_clause left: (tuple_pattern (identifier) @local))
(as_pattern alias: (as_pattern_target (identifier) @local))
; `match` patterns: a bare name captures (`case [x, *rest]`, `case {"k": v}`,
; `case Point(x=px)`); a dotted one (`case Color.RED`) is a value.
(case_pattern (dotted_name . (identifier) @local .))
(keyword_pattern (dotted_name . (identifier) @local .))
(splat_pattern (identifier) @local)
(case_pattern (as_pattern (identifier) @local))
(named_expression name: (identifier) @local)
(import_from_statement name: (dotted_name . (identifier) @local))
(import_from_statement name: (aliased_import alias: (identifier) @local))
(import_statement name: (dotted_name . (identifier) @local))

(global_statement (identifier) @global)
(nonlocal_statement (identifier) @global)
