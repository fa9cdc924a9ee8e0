; Lua: a file is a module (`acme/util.lua` is `acme.util`); `require "a.b"`
; loads one. `function M.f()` and `function M:m()` belong to the table `M`.

; ---------- definitions ----------
(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression table: (identifier) @receiver method: (identifier) @name)) @definition.method
(chunk (variable_declaration (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (table_constructor)))) @definition.module)
(chunk (variable_declaration (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition)))) @definition.function)
(chunk (assignment_statement (variable_list name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name)) (expression_list value: (function_definition))) @definition.function)

; ---------- imports ----------
; `local util = require("acme.util")`: `util` names the module.
(variable_declaration (assignment_statement (variable_list name: (identifier) @import.alias)
  (expression_list value: (function_call name: (identifier) @_require arguments: (arguments . (string content: (string_content) @import.module) .))))
  (#eq? @_require "require")) @import

; ---------- calls ----------
((function_call name: (identifier) @call.callee arguments: (arguments) @call.arguments) @call
  (#not-eq? @call.callee "require"))
(function_call name: (dot_index_expression table: (_) @call.object field: (identifier) @call.name)) @call
(function_call name: (method_index_expression table: (_) @call.object method: (identifier) @call.name)) @call

; ---------- bindings, for the types that flow ----------
(variable_declaration (assignment_statement (variable_list name: (identifier) @assign.name)
  (expression_list value: (function_call name: [(identifier) (dot_index_expression)] @assign.value)))) @assign
(parameters name: (identifier) @assign.name @assign.opaque @assign)
