(package_clause (package_identifier) @package)

; ---------- definitions ----------
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @receiver
    (pointer_type (type_identifier) @receiver)
    (generic_type type: (type_identifier) @receiver)
    (pointer_type (generic_type type: (type_identifier) @receiver))
  ]))
  name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [
  (type_identifier) (pointer_type) (function_type) (map_type) (slice_type) (array_type)
  (channel_type) (generic_type) (qualified_type)]) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))

; ---------- imports ----------
(import_spec name: (_) @import.alias path: (_) @import.module) @import
(import_spec !name path: (_) @import.module) @import

; ---------- calls ----------
(call_expression function: (_) @call.callee) @call

; ---------- bindings and declared types, for the types that flow ----------
(short_var_declaration left: (expression_list . (identifier) @assign.name)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @assign.value))) @assign
(parameter_declaration name: (identifier) @assign.name type: (_) @assign.type) @assign
(field_declaration name: (field_identifier) @assign.name type: (_) @assign.type) @assign
(var_spec name: (identifier) @assign.name type: (_) @assign.type) @assign
((function_declaration result: (_) @assign.type @assign) (#set! assign.name "return"))
((method_declaration result: (_) @assign.type @assign) (#set! assign.name "return"))
