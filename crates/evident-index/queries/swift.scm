; Swift: names are global within a module (a SwiftPM target directory);
; `import Module` makes the target's names visible.

; ---------- definitions ----------
(class_declaration "class" name: (type_identifier) @name) @definition.class
(class_declaration "actor" name: (type_identifier) @name) @definition.class
(class_declaration "struct" name: (type_identifier) @name) @definition.struct
(class_declaration "enum" name: (type_identifier) @name) @definition.enum
(class_declaration (inheritance_specifier inherits_from: (user_type) @base)) @base.of
; `extension Circle { ... }`: its members belong to `Circle`.
(class_declaration "extension" name: (user_type (type_identifier) @name)) @scope
(protocol_declaration name: (type_identifier) @name) @definition.protocol
(protocol_declaration (inheritance_specifier inherits_from: (user_type) @base)) @base.of
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(function_declaration name: (simple_identifier) @name) @definition.function
((init_declaration) @definition.method @name (#set! definition.name "init"))
(enum_entry name: (simple_identifier) @name @definition.constant)
(typealias_declaration name: (type_identifier) @name) @definition.type
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
(protocol_body (protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
((source_file (property_declaration (value_binding_pattern) @_let name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
  (#eq? @_let "let"))
((source_file (property_declaration (value_binding_pattern) @_var name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
  (#eq? @_var "var"))

; ---------- imports ----------
((import_declaration (identifier . (simple_identifier) @import.module)) @import
  (#set! import.name "*"))

; ---------- calls ----------
(call_expression . (simple_identifier) @call.callee (call_suffix (value_arguments) @call.arguments)) @call
(call_expression . (simple_identifier) @call.callee (call_suffix (lambda_literal))) @call
(call_expression . (navigation_expression target: (_) @call.object suffix: (navigation_suffix suffix: (simple_identifier) @call.name)) (call_suffix (value_arguments) @call.arguments)) @call
(call_expression . (navigation_expression target: (_) @call.object suffix: (navigation_suffix suffix: (simple_identifier) @call.name)) (call_suffix (lambda_literal))) @call

; ---------- bindings and declared types, for the types that flow ----------
(property_declaration name: (pattern bound_identifier: (simple_identifier) @assign.name) (type_annotation (user_type) @assign.type)) @assign
(property_declaration name: (pattern bound_identifier: (simple_identifier) @assign.name) value: (call_expression . [(simple_identifier) (navigation_expression)] @assign.value)) @assign
(parameter (simple_identifier) @assign.name . (user_type) @assign.type) @assign
