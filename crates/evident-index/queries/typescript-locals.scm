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
(type_parameter name: (type_identifier) @local.type)
(required_parameter pattern: (this) @local)
; Names that types bind: `infer T`, `[K in keyof T]`, `[key: string]`.
(conditional_type) @scope
(object_type) @scope
(infer_type (type_identifier) @local.type)
(mapped_type_clause name: (type_identifier) @local.type)
(index_signature name: (identifier) @local.type)

; ---------- object keys written for a declared type (see src/lang/members.rs) ----------
; An inline type's property and an enum's member define themselves.
(object_type (property_signature name: (property_identifier) @member.key @member.defines))
(enum_body (property_identifier) @member.key @member.defines)
(enum_body (enum_assignment name: (property_identifier) @member.key @member.defines))
(variable_declarator type: (type_annotation (_) @member.type) value: [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal)
(public_field_definition type: (type_annotation (_) @member.type) value: [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal)
(required_parameter pattern: (object_pattern) @member.literal type: (type_annotation (_) @member.type))
(optional_parameter pattern: (object_pattern) @member.literal type: (type_annotation (_) @member.type))
(required_parameter type: (type_annotation (_) @member.type) value: (object) @member.literal)
(as_expression [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal . (_) @member.type)
(variable_declarator name: (object_pattern) @member.literal value: (as_expression (_) . (_) @member.type))
(variable_declarator name: (object_pattern) @member.literal value: (non_null_expression (_) @member.object))
(satisfies_expression [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal . (_) @member.type)
; `function f(): T { return { a: 1 } }`, directly in the body.
(function_declaration return_type: (type_annotation (_) @member.type)
  body: (statement_block (return_statement [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal)))
(method_definition return_type: (type_annotation (_) @member.type)
  body: (statement_block (return_statement [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal)))
(arrow_function return_type: (type_annotation (_) @member.type)
  body: (parenthesized_expression (object) @member.literal))
(arrow_function return_type: (type_annotation (_) @member.type)
  body: (statement_block (return_statement (object) @member.literal)))
