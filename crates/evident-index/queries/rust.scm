; ---------- definitions ----------
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.function

; `impl Foo { .. }` and `impl Trait for Foo { .. }` scope methods under `Foo`.
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
]) @scope

; ---------- imports ----------
; use a;            use a::b;           use a::b as c;
(use_declaration argument: (identifier) @import.module) @import
(use_declaration argument: (scoped_identifier path: (_) @import.module name: (_) @import.name)) @import
(use_declaration argument: (use_as_clause
  path: (scoped_identifier path: (_) @import.module name: (_) @import.name)
  alias: (_) @import.alias)) @import
(use_declaration argument: (use_as_clause path: (identifier) @import.module alias: (_) @import.alias)) @import
; use a::*;
(use_declaration argument: (use_wildcard (_) @import.module) @import.wildcard) @import
; use a::{b, c as d, e::f, g::*, h::{i, j as k}};
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list [
  (identifier) @import.name
  (self) @import.name
  (use_as_clause path: (identifier) @import.name alias: (_) @import.alias)
  (scoped_identifier path: (_) @import.module name: (_) @import.name)
  (use_as_clause path: (scoped_identifier path: (_) @import.module name: (_) @import.name) alias: (_) @import.alias)
  (use_wildcard (_) @import.module) @import.wildcard
  (scoped_use_list path: (_) @import.module list: (use_list [
    (identifier) @import.name
    (use_as_clause path: (identifier) @import.name alias: (_) @import.alias)
  ]))
]))) @import
; use {a, b};
(use_declaration argument: (use_list (identifier) @import.module)) @import
; mod m;  (a file module: an import of `self::m`)
((mod_item name: (identifier) @import.name !body) @import
  (#set! import.module "self"))

; ---------- calls ----------
(call_expression function: (_) @call.callee) @call
(macro_invocation macro: (_) @call.callee) @call

; ---------- local bindings from constructors: `let x = Type::new()`, `Type { .. }` ----------
(let_declaration pattern: (identifier) @assign.name value: (call_expression function: (scoped_identifier) @assign.value)) @assign
(let_declaration pattern: (identifier) @assign.name value: (struct_expression name: (_) @assign.value)) @assign

; ---------- declared types, for the types that flow ----------
(let_declaration pattern: (identifier) @assign.name type: (_) @assign.type) @assign
(parameter pattern: (identifier) @assign.name type: (_) @assign.type) @assign
((function_item return_type: (_) @assign.type @assign) (#set! assign.name "return"))
