; PHP: namespaces are the module prefix (`App\Billing`); `use` names a
; class through composer.json's PSR-4 map; `require`/`include` load a file.
(namespace_definition name: (namespace_name) @package)

; ---------- definitions ----------
(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(class_declaration name: (name) @name (base_clause [(name) (qualified_name)] @base)) @definition.class
(class_declaration name: (name) @name (class_interface_clause [(name) (qualified_name)] @base)) @definition.class
(class_declaration name: (name) @name body: (declaration_list (use_declaration [(name) (qualified_name)] @base))) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(enum_case name: (name) @name) @definition.constant
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name) @definition.constant)
(property_declaration (property_element name: (variable_name (name) @name)) @definition.property)

; ---------- imports ----------
(namespace_use_clause [(qualified_name prefix: (namespace_name) @import.module (name) @import.name)] !alias) @import
(namespace_use_clause [(qualified_name prefix: (namespace_name) @import.module (name) @import.name)] alias: (name) @import.alias) @import
(namespace_use_clause (name) @import.name !alias) @import
((require_expression (string (string_content) @import.module)) @import (#set! import.name "*"))
((require_once_expression (string (string_content) @import.module)) @import (#set! import.name "*"))
((include_expression (string (string_content) @import.module)) @import (#set! import.name "*"))
((include_once_expression (string (string_content) @import.module)) @import (#set! import.name "*"))
; `__DIR__ . '/helpers.php'`: beside the file.
((require_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.module))) @import
  (#eq? @_dir "__DIR__") (#set! import.module "./") (#set! import.name "*"))
((require_once_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.module))) @import
  (#eq? @_dir "__DIR__") (#set! import.module "./") (#set! import.name "*"))
((include_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.module))) @import
  (#eq? @_dir "__DIR__") (#set! import.module "./") (#set! import.name "*"))
((include_once_expression (binary_expression left: (name) @_dir right: (string (string_content) @import.module))) @import
  (#eq? @_dir "__DIR__") (#set! import.module "./") (#set! import.name "*"))

; ---------- calls ----------
(function_call_expression function: [(name) (qualified_name)] @call.callee arguments: (arguments) @call.arguments) @call
(member_call_expression object: (_) @call.object name: (name) @call.name arguments: (arguments) @call.arguments) @call
(nullsafe_member_call_expression object: (_) @call.object name: (name) @call.name) @call
(scoped_call_expression scope: (_) @call.object name: (name) @call.name arguments: (arguments) @call.arguments) @call
(object_creation_expression [(name) (qualified_name)] @call.callee) @call
(object_creation_expression (name) @call.callee) @call

; ---------- bindings and declared types, for the types that flow ----------
(assignment_expression left: (variable_name) @assign.name right: (object_creation_expression [(name) (qualified_name)] @assign.type)) @assign
(assignment_expression left: (variable_name) @assign.name right: (function_call_expression function: [(name) (qualified_name)] @assign.value)) @assign
(simple_parameter type: (named_type) @assign.type name: (variable_name) @assign.name) @assign
(property_promotion_parameter type: (named_type) @assign.type name: (variable_name) @assign.name) @assign
((method_declaration return_type: (named_type) @assign.type @assign) (#set! assign.name "return"))
((function_definition return_type: (named_type) @assign.type @assign) (#set! assign.name "return"))
