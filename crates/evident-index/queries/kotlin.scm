; Kotlin: the package is the module prefix; `import` names a class, a
; top-level function or (with `*`) a package.
(package_header (qualified_identifier) @package)

; ---------- definitions ----------
((class_declaration "interface" name: (identifier) @name) @definition.interface)
((class_declaration (modifiers (class_modifier) @_enum) name: (identifier) @name) @definition.enum
  (#eq? @_enum "enum"))
((class_declaration name: (identifier) @name) @definition.class
  (#not-match? @definition.class "^(\\s*(@\\S+|[a-z]+)\\s+)*(interface|enum\\s+class)\\s"))
(class_declaration (delegation_specifiers (delegation_specifier [
  (constructor_invocation (user_type) @base)
  (user_type) @base]))) @base.of
(object_declaration (delegation_specifiers (delegation_specifier [
  (constructor_invocation (user_type) @base)
  (user_type) @base]))) @base.of
(object_declaration name: (identifier) @name) @definition.object
(companion_object name: (identifier) @name) @definition.object
(companion_object !name) @scope
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor) @scope
(type_alias type: (identifier) @name) @definition.type
(enum_entry (identifier) @name) @definition.constant
(class_parameter ["val" "var"] (identifier) @name) @definition.property
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.property)
((source_file (property_declaration (modifiers (property_modifier) @_const) (variable_declaration (identifier) @name)) @definition.constant)
  (#eq? @_const "const"))
((source_file (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
  (#not-match? @definition.variable "^\\s*(@\\S+\\s+)*const\\s"))

; ---------- imports ----------
; `import a.b.C` and `import a.b.f as g`: the path's last segment is the name.
((import (qualified_identifier) @import.module .) @import
  (#not-match? @import "\\*\\s*$")
  (#set! import.path ""))
((import (qualified_identifier) @import.module (identifier) @import.alias) @import
  (#set! import.path ""))
(import (qualified_identifier) @import.module "*" @import.wildcard) @import

; ---------- calls ----------
(call_expression . (identifier) @call.callee (value_arguments) @call.arguments) @call
(call_expression . (navigation_expression . (_) @call.object (identifier) @call.name .) (value_arguments) @call.arguments) @call
(call_expression . (identifier) @call.callee (annotated_lambda)) @call
(call_expression . (navigation_expression . (_) @call.object (identifier) @call.name .) (annotated_lambda)) @call

; ---------- bindings and declared types, for the types that flow ----------
(property_declaration (variable_declaration (identifier) @assign.name (user_type) @assign.type)) @assign
(property_declaration (variable_declaration (identifier) @assign.name) . (call_expression . [(identifier) (navigation_expression)] @assign.value)) @assign
(parameter (identifier) @assign.name (user_type) @assign.type) @assign
(class_parameter (identifier) @assign.name (user_type) @assign.type) @assign
((function_declaration (function_value_parameters) (user_type) @assign.type @assign) (#set! assign.name "return"))
