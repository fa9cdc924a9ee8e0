; C: definitions, prototypes (declarations), macros, includes and calls.

; ---------- definitions ----------
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
; Prototypes: the definition with the same name is where the function is.
((declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
  (#set! definition.declaration "true"))
((declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
  (#set! definition.declaration "true"))
((declaration declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
  (#set! definition.declaration "true"))

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(enumerator name: (identifier) @name) @definition.constant
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(type_definition declarator: (function_declarator declarator: (type_identifier) @name)) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; File-level variables.
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable)

; ---------- imports: an include makes every name of the header visible ----------
((preproc_include path: (string_literal (string_content) @import.module)) @import
  (#set! import.name "*"))
((preproc_include path: (system_lib_string) @import.module) @import
  (#set! import.name "*"))

; ---------- calls ----------
(call_expression function: (identifier) @call.callee arguments: (argument_list) @call.arguments) @call
; Through a struct field or a pointer to one: a function pointer, never guessed.
(call_expression function: (field_expression argument: (_) @call.object field: (field_identifier) @call.name)) @call
(call_expression function: (parenthesized_expression) @call.callee) @call

; ---------- declared types, for the types that flow ----------
(declaration type: (_) @assign.type declarator: (init_declarator declarator: (identifier) @assign.name)) @assign
(declaration type: (_) @assign.type declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @assign.name))) @assign
; A parameter holds what the caller passed: nothing to follow (function pointers stay unresolved).
(function_definition declarator: (_ parameters: (parameter_list (parameter_declaration declarator: [
  (identifier) @assign.name
  (pointer_declarator declarator: (identifier) @assign.name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @assign.name)))
] @assign.opaque) @assign)))
