; JavaScript's grammar only (TypeScript wraps heritage in `extends_clause`, see typescript.scm).
(class_declaration name: (_) @name (class_heritage [(identifier) (member_expression)] @base)) @definition.class
([(lexical_declaration (variable_declarator name: (identifier) @name
   value: (class (class_heritage [(identifier) (member_expression)] @base))))
  (variable_declaration (variable_declarator name: (identifier) @name
   value: (class (class_heritage [(identifier) (member_expression)] @base))))] @definition.class)

; Class fields: `class A { count = 0; static limit = 3 }`.
(class_body (field_definition property: (property_identifier) @name) @definition.variable)

; Parameters by position, bound by each call of the function in its file
; (TypeScript wraps them in required_parameter, see typescript.scm).
(formal_parameters [(identifier) @assign.name
                    (assignment_pattern left: (identifier) @assign.name)] @assign.parameter @assign)
; Parameter defaults: `function run(handler = fallback)`.
(formal_parameters (assignment_pattern left: (identifier) @assign.name
                                       right: [(identifier) (member_expression)] @assign.alias) @assign)
