; ---------- definitions ----------
(class_definition name: (identifier) @name) @definition.class
(class_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.class
(class_definition name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute)] @base)) @definition.class
(function_definition name: (identifier) @name) @definition.function
(function_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.function

(module (expression_statement (assignment left: (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable
  (#not-match? @name "^[A-Z][A-Z0-9_]*$"))
; Class attributes: `Class.NAME`, `Class.name`.
(class_definition body: (block (expression_statement (assignment left: (identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name)) @definition.variable)
  (#not-match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------- imports ----------
(import_statement name: (dotted_name) @import.module) @import
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.wildcard) @import

; ---------- calls ----------
(call function: (_) @call.callee) @call

; ---------- local bindings from constructors: `x = Cls(...)` ----------
; Only CapWords callees: by convention those are classes, and other calls'
; results have no type to find methods on.
((assignment left: (identifier) @assign.name right: (call function: [(identifier) (attribute)] @assign.value)) @assign
  (#match? @assign.value "(^|[.])[A-Z][A-Za-z0-9_]*$"))
