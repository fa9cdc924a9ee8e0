; C++: what C has, plus namespaces, classes, methods defined out of class
; (`void Foo::bar() {}` belongs to `Foo`), templates and `new`.

; ---------- definitions ----------
(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(namespace_definition name: (nested_namespace_specifier) @name) @definition.namespace
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(class_specifier name: (type_identifier) @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)
  body: (field_declaration_list)) @definition.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(struct_specifier name: (type_identifier) @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)
  body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(enumerator name: (identifier) @name) @definition.constant
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

; Functions, and methods defined inside their class.
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))) @definition.function
; Out of class: `Circle::area` is a method of `Circle`.
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  scope: [(namespace_identifier) (template_type)] @receiver
  name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
  scope: [(namespace_identifier) (template_type)] @receiver name: (identifier) @name)))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier
  scope: [(namespace_identifier) (template_type)] @receiver name: (identifier) @name)))) @definition.function
; Declared in the class (or a header), defined elsewhere.
((field_declaration declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
  (#set! definition.declaration "true"))
((field_declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))) @definition.function
  (#set! definition.declaration "true"))
((field_declaration declarator: (reference_declarator (function_declarator declarator: (field_identifier) @name))) @definition.function
  (#set! definition.declaration "true"))
((declaration declarator: (function_declarator declarator: [(identifier) (destructor_name)] @name)) @definition.function
  (#set! definition.declaration "true"))
((declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
  (#set! definition.declaration "true"))
((declaration declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @definition.function
  (#set! definition.declaration "true"))
; Data members.
(field_declaration_list (field_declaration declarator: (field_identifier) @name) @definition.property)

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(declaration_list (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)

; ---------- imports ----------
((preproc_include path: (string_literal (string_content) @import.module)) @import
  (#set! import.name "*"))
((preproc_include path: (system_lib_string) @import.module) @import
  (#set! import.name "*"))
; `using ns::Name;`, `using namespace ns;`, `namespace g = ns;`: names, not files.

; ---------- calls ----------
(call_expression function: [(identifier) (qualified_identifier) (template_function)] @call.callee arguments: (argument_list) @call.arguments) @call
(call_expression function: (field_expression argument: (_) @call.object field: [(field_identifier) (template_method)] @call.name)) @call
(new_expression type: (_) @call.callee) @call
; `Circle c(2.0);` constructs a `Circle`.
(declaration type: [(type_identifier) (qualified_identifier)] @call.callee declarator: (init_declarator value: (argument_list))) @call

; ---------- declared types and constructions, for the types that flow ----------
(declaration type: [(type_identifier) (qualified_identifier) (template_type)] @assign.type declarator: (init_declarator declarator: (identifier) @assign.name)) @assign
(declaration type: [(type_identifier) (qualified_identifier) (template_type)] @assign.type declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @assign.name))) @assign
(declaration type: [(type_identifier) (qualified_identifier) (template_type)] @assign.type declarator: (identifier) @assign.name) @assign
(declaration type: (placeholder_type_specifier) declarator: (init_declarator declarator: (identifier) @assign.name value: (call_expression function: [(identifier) (qualified_identifier)] @assign.value))) @assign
(declaration type: (placeholder_type_specifier) declarator: (init_declarator declarator: (identifier) @assign.name value: (new_expression type: (_) @assign.type))) @assign
(field_declaration type: [(type_identifier) (qualified_identifier) (template_type)] @assign.type declarator: (field_identifier) @assign.name) @assign
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration type: (_) @assign.type declarator: [
  (identifier) @assign.name
  (pointer_declarator declarator: (identifier) @assign.name)
  (reference_declarator (identifier) @assign.name)
]) @assign)))
