; TypeScript adds these to javascript.scm (the language table concatenates them).
(abstract_class_declaration name: (_) @name) @definition.class
(class_declaration name: (_) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @definition.class
(abstract_class_declaration name: (_) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
; Class fields and properties: `class A { private count: number = 0 }`.
(class_body (public_field_definition name: (property_identifier) @name) @definition.variable)
(method_signature name: (_) @name) @definition.method
; Interface and object-type properties: `interface Observer { next: (v) => void }`.
(interface_body (property_signature name: (property_identifier) @name) @definition.variable)
(abstract_method_signature name: (_) @name) @definition.method
(function_signature name: (_) @name) @definition.function
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module
; import fs = require('fs');
(import_statement (import_require_clause (identifier) @import.alias
  source: (string (string_fragment) @import.module))) @import

; ---------- declared types, for the types that flow ----------
(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
(optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
(variable_declarator name: (identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
(public_field_definition name: (property_identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
((function_declaration return_type: (type_annotation (_) @assign.type @assign)) (#set! assign.name "return"))
((method_definition return_type: (type_annotation (_) @assign.type @assign)) (#set! assign.name "return"))

; Parameters by position, bound by each call of the function in its file.
(formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                    (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign)
; Parameter defaults: `function run(handler = fallback)`.
(required_parameter pattern: (identifier) @assign.name value: [(identifier) (member_expression)] @assign.alias) @assign
