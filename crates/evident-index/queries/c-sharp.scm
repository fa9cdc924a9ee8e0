; C#: namespaces are the module prefix; `using` imports a namespace's names.
(namespace_declaration name: (_) @package)
(file_scoped_namespace_declaration name: (_) @package)

; ---------- definitions ----------
(class_declaration name: (identifier) @name) @definition.class
(class_declaration name: (identifier) @name (base_list [(identifier) (qualified_name) (generic_name)] @base)) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(struct_declaration name: (identifier) @name (base_list [(identifier) (qualified_name) (generic_name)] @base)) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(interface_declaration name: (identifier) @name (base_list [(identifier) (qualified_name) (generic_name)] @base)) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_member_declaration name: (identifier) @name) @definition.constant
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.property
((field_declaration (modifier) @_m (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
  (#eq? @_m "const"))
((field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.variable
  (#not-match? @definition.variable "(^|\\s)const\\s"))

; ---------- imports ----------
; `using A.B;`: every name of the namespace.
((using_directive . [(identifier) (qualified_name)] @import.module .) @import
  (#set! import.name "*"))
; `using S = A.B.Strings;`
(using_directive name: (identifier) @import.alias (qualified_name qualifier: (_) @import.module name: (identifier) @import.name)) @import

; ---------- calls ----------
(invocation_expression function: (identifier) @call.callee arguments: (argument_list) @call.arguments) @call
(invocation_expression function: (generic_name (identifier) @call.callee)) @call
(invocation_expression function: (member_access_expression expression: _ @call.object name: (_) @call.name) arguments: (argument_list) @call.arguments) @call
(object_creation_expression type: (_) @call.callee) @call

; ---------- bindings and declared types, for the types that flow ----------
(variable_declaration type: (implicit_type) (variable_declarator name: (identifier) @assign.name (object_creation_expression type: (_) @assign.type))) @assign
(variable_declaration type: (implicit_type) (variable_declarator name: (identifier) @assign.name (invocation_expression function: [(identifier) (member_access_expression)] @assign.value))) @assign
(variable_declaration type: [(identifier) (qualified_name) (generic_name)] @assign.type (variable_declarator name: (identifier) @assign.name)) @assign
(parameter type: (_) @assign.type name: (identifier) @assign.name) @assign
(property_declaration type: (_) @assign.type name: (identifier) @assign.name) @assign
((method_declaration returns: (_) @assign.type @assign) (#set! assign.name "return"))
