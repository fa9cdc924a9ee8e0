; TypeScript's parameters (added to javascript-locals.scm).
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
(rest_pattern (identifier) @local)

; Declarations whose parameters and type parameters are their own: overload
; signatures, interface members, function types, generic classes and types.
(function_signature) @scope
(method_signature) @scope
(abstract_method_signature) @scope
(call_signature) @scope
(construct_signature) @scope
(function_type) @scope
(class_declaration) @scope
(abstract_class_declaration) @scope
(interface_declaration) @scope
(type_alias_declaration) @scope
(type_parameter name: (type_identifier) @local)
