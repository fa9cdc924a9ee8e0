(package_declaration [(scoped_identifier) (identifier)] @package)

; ---------- definitions ----------
(class_declaration name: (identifier) @name) @definition.class
(class_declaration name: (identifier) @name
  superclass: (superclass [(type_identifier) (scoped_type_identifier) (generic_type)] @base)) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(class_body (field_declaration (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant)
; Other fields: without modifiers, or with modifiers that do not make a constant.
(class_body (field_declaration . type: (_)
  declarator: (variable_declarator name: (identifier) @name)) @definition.variable)
((class_body (field_declaration (modifiers) @_modifiers
  declarator: (variable_declarator name: (identifier) @name)) @definition.variable)
  (#not-match? @_modifiers "static(.|\n)*final|final(.|\n)*static"))

; ---------- imports ----------
; import a.b.C;  import static a.b.C.m;
(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
; import a.b.*;
(import_declaration (scoped_identifier) @import.module (asterisk) @import.wildcard) @import

; ---------- calls ----------
(method_invocation object: (_) @call.object name: (identifier) @call.name) @call
(method_invocation !object name: (identifier) @call.callee) @call
(object_creation_expression type: (_) @call.callee) @call
(explicit_constructor_invocation constructor: (_) @call.callee) @call

; ---------- local bindings from constructors: `T x = new T()` ----------
(local_variable_declaration declarator: (variable_declarator name: (identifier) @assign.name
  value: (object_creation_expression type: (_) @assign.value))) @assign

; ---------- declared types, for the types that flow ----------
(field_declaration type: (_) @assign.type declarator: (variable_declarator name: (identifier) @assign.name)) @assign
(local_variable_declaration type: (_) @assign.type declarator: (variable_declarator name: (identifier) @assign.name)) @assign
(formal_parameter type: (_) @assign.type name: (identifier) @assign.name) @assign
((method_declaration type: (_) @assign.type @assign) (#set! assign.name "return"))
