; TypeScript adds these to javascript.scm (the language table concatenates them).
(abstract_class_declaration name: (_) @name) @definition.class
(class_declaration name: (_) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @definition.class
(abstract_class_declaration name: (_) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @definition.class
([(lexical_declaration (variable_declarator name: (identifier) @name
   value: (class (class_heritage (extends_clause value: [(identifier) (member_expression)] @base)))))
  (variable_declaration (variable_declarator name: (identifier) @name
   value: (class (class_heritage (extends_clause value: [(identifier) (member_expression)] @base)))))]
  @definition.class)
(interface_declaration name: (_) @name) @definition.interface
; Interface bases: `interface TapObserver<T> extends Observer<T>, Other`.
(interface_declaration (extends_type_clause type: [(type_identifier) (nested_type_identifier)] @base)) @base.of
; A generic base whole: a generic alias's arguments are bases too (see hierarchy.rs).
(interface_declaration (extends_type_clause type: (generic_type) @base)) @base.of
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
; Class fields and properties: `class A { private count: number = 0 }`.
(class_body (public_field_definition name: (property_identifier) @name) @definition.variable)
(method_signature name: (_) @name) @definition.method
; Interface and object-type properties: `interface Observer { next: (v) => void }`.
(interface_body (property_signature name: (property_identifier) @name) @definition.variable)
; An object type alias's properties, also inside its intersections and unions
; (`type Change = { name: string } & ({ type: "add" } | { type: "remove" })`).
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.variable))
(type_alias_declaration value: [(intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.variable))
                                (union_type (object_type (property_signature name: (property_identifier) @name) @definition.variable))
                                (union_type (union_type (object_type (property_signature name: (property_identifier) @name) @definition.variable)))])
(type_alias_declaration value: (intersection_type (parenthesized_type [
  (union_type (object_type (property_signature name: (property_identifier) @name) @definition.variable))
  (union_type (union_type (object_type (property_signature name: (property_identifier) @name) @definition.variable)))])))
; Enum members: `enum State { Idle, Done = 2 }`.
(enum_body (property_identifier) @name @definition.constant)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.constant)
; Module-level bindings of TypeScript's own expressions (`const x = {...} as
; const`, `export var f = make() as F`, `let s = get()!`), and ambient ones
; (`declare const __DEV__: boolean`).
(program [(lexical_declaration (variable_declarator name: (identifier) @name
           value: [(as_expression) (satisfies_expression) (non_null_expression)]))
          (variable_declaration (variable_declarator name: (identifier) @name
           value: [(as_expression) (satisfies_expression) (non_null_expression)]))
          (ambient_declaration [(lexical_declaration (variable_declarator name: (identifier) @name))
                                (variable_declaration (variable_declarator name: (identifier) @name))])]
  @definition.variable)
(program (export_statement [(lexical_declaration (variable_declarator name: (identifier) @name
                              value: [(as_expression) (satisfies_expression) (non_null_expression)]))
                            (variable_declaration (variable_declarator name: (identifier) @name
                              value: [(as_expression) (satisfies_expression) (non_null_expression)]))
                            (ambient_declaration [(lexical_declaration (variable_declarator name: (identifier) @name))
                                                  (variable_declaration (variable_declarator name: (identifier) @name))])]
  @definition.variable))
(abstract_method_signature name: (_) @name) @definition.method
(function_signature name: (_) @name) @definition.function
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module
; import fs = require('fs');
(import_statement (import_require_clause (identifier) @import.alias
  source: (string (string_fragment) @import.module))) @import

; ---------- declared types, for the types that flow ----------
; A function's parameters (not those of a function type: they bind nothing).
[(function_declaration parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))
                                                                (optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))] @assign))
  (function_expression parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))
                                                               (optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))] @assign))
  (arrow_function parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))
                                                          (optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))] @assign))
  (method_definition parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))
                                                             (optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))] @assign))
  (generator_function_declaration parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))
                                                                          (optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))] @assign))
  (generator_function parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))
                                                              (optional_parameter pattern: (identifier) @assign.name type: (type_annotation (_) @assign.type))] @assign))]
(variable_declarator name: (identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
(public_field_definition name: (property_identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
(property_signature name: (property_identifier) @assign.name type: (type_annotation (_) @assign.type)) @assign
; `type P<T> = A<T> | B`: what the alias stands for, where a type names it.
((type_alias_declaration name: (type_identifier) @assign.name value: (_) @assign.type) @assign
  (#set! assign.type_alias "true"))
; Parameter properties: `constructor(private store: Store)` declares the field `this.store`.
((required_parameter (accessibility_modifier) pattern: (identifier) @assign.name
  type: (type_annotation (_) @assign.type)) @assign (#set! assign.receiver "this"))
((required_parameter "readonly" pattern: (identifier) @assign.name
  type: (type_annotation (_) @assign.type)) @assign (#set! assign.receiver "this"))
; ... and untyped: `constructor(public name = "x")` is still the field `this.name`.
((required_parameter (accessibility_modifier) pattern: (identifier) @assign.name !type) @assign.opaque @assign
  (#set! assign.receiver "this"))
((function_declaration return_type: (type_annotation (_) @assign.type @assign)) (#set! assign.name "return"))
((method_definition return_type: (type_annotation (_) @assign.type @assign)) (#set! assign.name "return"))

; Parameters by position, bound by each call of the function in its file:
; a named function's (an anonymous one's are not its enclosing function's).
([(function_declaration parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                                                                (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign))
  (variable_declarator value: (function_expression parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                                                               (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign)))
  (variable_declarator value: (arrow_function parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                                                          (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign)))
  (method_definition parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                                                             (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign))
  (generator_function_declaration parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                                                                          (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign))
  (public_field_definition value: (arrow_function parameters: (formal_parameters [(required_parameter pattern: (identifier) @assign.name)
                                                          (optional_parameter pattern: (identifier) @assign.name)] @assign.parameter @assign)))]
 (#set! assign.not_positional "this"))
; Parameter defaults: `function run(handler = fallback)`.
(required_parameter pattern: (identifier) @assign.name value: [(identifier) (member_expression)] @assign.alias) @assign

; Callbacks. A parameter declared as a function type binds `name(i)` to the
; type of that function's parameter i (`init: (source: Observable<T>,
; subscriber: Subscriber<R>) => void` binds `init(1)`) ...
(([(required_parameter pattern: (identifier) @assign.name
    type: (type_annotation (function_type parameters: (formal_parameters
      [(required_parameter pattern: (identifier) type: (type_annotation (_) @assign.type))
       (optional_parameter pattern: (identifier) type: (type_annotation (_) @assign.type))] @assign.callback))))
   (optional_parameter pattern: (identifier) @assign.name
    type: (type_annotation (function_type parameters: (formal_parameters
      [(required_parameter pattern: (identifier) type: (type_annotation (_) @assign.type))
       (optional_parameter pattern: (identifier) type: (type_annotation (_) @assign.type))] @assign.callback))))] @assign)
  (#set! assign.not_positional "this"))
; ... and an untyped parameter of a function passed as an argument is what
; the callee declares it to be (`operate((source, subscriber) => ...)`).
((call_expression function: (_) @assign.callee
  arguments: (arguments [(arrow_function parameters: (formal_parameters
                           (required_parameter pattern: (identifier) @assign.name !type) @assign.callback))
                         (arrow_function parameter: (identifier) @assign.name @assign.callback)
                         (function_expression parameters: (formal_parameters
                           (required_parameter pattern: (identifier) @assign.name !type) @assign.callback))]
    @assign.argument)) @assign
  (#set! assign.not_positional "this"))
(new_expression constructor: (_) @assign.callee
  arguments: (arguments [(arrow_function parameters: (formal_parameters
                           (required_parameter pattern: (identifier) @assign.name !type) @assign.callback))
                         (arrow_function parameter: (identifier) @assign.name @assign.callback)]
    @assign.argument)) @assign
