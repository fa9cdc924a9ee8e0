; Bash: functions, `source`/`.` of other scripts, and commands. A command
; that names no function of the repository is an external program.

; ---------- definitions ----------
(function_definition name: (word) @name) @definition.function
(program (declaration_command "readonly" (variable_assignment name: (variable_name) @name)) @definition.constant)
(program (declaration_command ["export" "declare" "typeset"] (variable_assignment name: (variable_name) @name)) @definition.variable)
(program (variable_assignment name: (variable_name) @name) @definition.variable)

; ---------- imports ----------
((command name: (command_name (word) @_source) . argument: (word) @import.module) @import
  (#any-of? @_source "source" ".")
  (#set! import.name "*"))
((command name: (command_name (word) @_source) . argument: (string . (string_content) @import.module .)) @import
  (#any-of? @_source "source" ".")
  (#set! import.name "*"))
((command name: (command_name (word) @_source) . argument: (string (command_substitution) (string_content) @import.module)) @import
  (#any-of? @_source "source" ".")
  (#set! import.module "./")
  (#set! import.name "*"))

; ---------- calls: every command but `source` ----------
((command name: (command_name (word) @call.callee)) @call
  (#not-any-of? @call.callee "source" "."))
