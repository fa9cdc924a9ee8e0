; Scala: the package is the module prefix; `import a.b.C`, `a.b.{C, D => E}`
; and `a.b._` (a package).
(package_clause name: (package_identifier) @package)

; ---------- definitions ----------
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(object_definition name: (identifier) @name) @definition.object
(enum_definition name: (identifier) @name) @definition.enum
(simple_enum_case name: (identifier) @name) @definition.constant
(full_enum_case name: (identifier) @name) @definition.constant
(class_definition extend: (extends_clause type: [(type_identifier) (generic_type) (stable_type_identifier)] @base)) @base.of
(trait_definition extend: (extends_clause type: [(type_identifier) (generic_type) (stable_type_identifier)] @base)) @base.of
(object_definition extend: (extends_clause type: [(type_identifier) (generic_type) (stable_type_identifier)] @base)) @base.of
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(type_definition name: (type_identifier) @name) @definition.type
(template_body (val_definition pattern: (identifier) @name) @definition.property)
(template_body (var_definition pattern: (identifier) @name) @definition.property)
(compilation_unit (val_definition pattern: (identifier) @name) @definition.constant)
(class_parameter name: (identifier) @name) @definition.property

; ---------- imports ----------
; The path is written as sibling identifiers: the import's text after
; `import`, up to its selectors, is the module (`import.path`).
((import_declaration) @import @import.module
  (#not-match? @import "(\\}|\\._)\\s*$")
  (#set! import.path "import"))
((import_declaration (namespace_selectors (identifier) @import.name)) @import @import.module
  (#set! import.path "import"))
((import_declaration (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias))) @import @import.module
  (#set! import.path "import"))
((import_declaration (namespace_wildcard) @import.wildcard) @import @import.module
  (#set! import.path "import"))

; ---------- calls ----------
(call_expression function: (identifier) @call.callee arguments: (arguments) @call.arguments) @call
(call_expression function: (field_expression value: (_) @call.object field: (identifier) @call.name) arguments: (arguments) @call.arguments) @call
(call_expression function: (generic_function function: (identifier) @call.callee)) @call
(call_expression function: (generic_function function: (field_expression value: (_) @call.object field: (identifier) @call.name))) @call
(instance_expression [(type_identifier) (generic_type) (stable_type_identifier)] @call.callee) @call

; ---------- bindings and declared types, for the types that flow ----------
(val_definition pattern: (identifier) @assign.name type: (_) @assign.type) @assign
(val_definition pattern: (identifier) @assign.name value: (instance_expression [(type_identifier) (generic_type)] @assign.type)) @assign
(val_definition pattern: (identifier) @assign.name value: (call_expression function: [(identifier) (field_expression)] @assign.value)) @assign
(parameter name: (identifier) @assign.name type: (_) @assign.type) @assign
(class_parameter name: (identifier) @assign.name type: (_) @assign.type) @assign
((function_definition return_type: (_) @assign.type @assign) (#set! assign.name "return"))
