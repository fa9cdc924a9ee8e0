; Ruby: modules and classes nest names (`Billing::Invoice`); `require` and
; `require_relative` load files whose names become visible everywhere.

; ---------- definitions ----------
(module name: [(constant) (scope_resolution)] @name) @definition.module
(class name: [(constant) (scope_resolution)] @name) @definition.class
(class name: [(constant) (scope_resolution)] @name superclass: (superclass [(constant) (scope_resolution)] @base)) @definition.class
(singleton_class) @scope
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
; `attr_reader :total` defines methods named by its symbols.
((call method: (identifier) @_attr arguments: (argument_list (simple_symbol) @name) @definition.property)
  (#any-of? @_attr "attr_reader" "attr_writer" "attr_accessor")
  (#set! definition.name_prefix ":"))
; `include Loggable` mixes the module's methods in: a base of the class.
((class body: (body_statement (call method: (identifier) @_include arguments: (argument_list [(constant) (scope_resolution)] @base)))) @base.of
  (#any-of? @_include "include" "prepend"))

; ---------- imports ----------
((call !receiver method: (identifier) @_require arguments: (argument_list . (string (string_content) @import.module) .)) @import
  (#eq? @_require "require")
  (#set! import.name "*"))
((call !receiver method: (identifier) @_require arguments: (argument_list . (string (string_content) @import.module) .)) @import
  (#eq? @_require "require_relative")
  (#set! import.module "./")
  (#set! import.name "*"))

; ---------- calls ----------
; With or without parentheses; `Cls.new` constructs `Cls`.
((call !receiver method: (identifier) @call.callee) @call
  (#not-any-of? @call.callee "require" "require_relative" "attr_reader" "attr_writer" "attr_accessor" "include" "extend" "prepend" "private" "protected" "public" "module_function"))
((call receiver: (_) @call.object method: (identifier) @call.name) @call
  (#not-eq? @call.name "new"))
((call receiver: [(constant) (scope_resolution)] @call.callee method: (identifier) @_new) @call
  (#eq? @_new "new"))
; A bare name in statement position is a method call on `self`, unless a
; local holds it.
; `#set! call.unless_bound`: not when the method binds the name (a local).
([(body_statement (identifier) @call.callee @call) (program (identifier) @call.callee @call)]
  (#not-any-of? @call.callee "private" "protected" "public" "module_function")
  (#set! call.unless_bound "true"))

; ---------- bindings, for the types that flow ----------
(assignment left: (identifier) @assign.name
  right: (call receiver: [(constant) (scope_resolution)] @assign.value method: (identifier) @_new)
  (#eq? @_new "new")) @assign
(assignment left: (instance_variable) @assign.name
  right: (call receiver: [(constant) (scope_resolution)] @assign.value method: (identifier) @_new)
  (#eq? @_new "new")) @assign
(method_parameters (identifier) @assign.name @assign.opaque @assign)
((assignment left: (identifier) @assign.name right: (_) @assign.opaque) @assign
  (#not-match? @assign.opaque "^[A-Z][A-Za-z0-9_:]*\\.new\\b"))
(optional_parameter name: (identifier) @assign.name @assign.opaque @assign)
(keyword_parameter name: (identifier) @assign.name @assign.opaque @assign)
(block_parameters (identifier) @assign.name @assign.opaque @assign)
