; Local bindings, for `def` at a parameter or local (see src/lang/locals.rs).
; A function is the scope a `var` is hoisted to (`@local.hoisted`).
(function_declaration) @scope.function
(function_expression) @scope.function
(generator_function_declaration) @scope.function
(generator_function) @scope.function
(arrow_function) @scope.function
(method_definition) @scope.function
(statement_block) @scope
(for_statement) @scope
(for_in_statement) @scope
(catch_clause) @scope

(arrow_function parameter: (identifier) @local)
(lexical_declaration (variable_declarator name: (identifier) @local))
(variable_declaration (variable_declarator name: (identifier) @local.hoisted))
(object_pattern (shorthand_property_identifier_pattern) @local)
(object_pattern (pair_pattern value: (identifier) @local))
(object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
(object_pattern (pair_pattern value: (assignment_pattern left: (identifier) @local)))
(array_pattern (identifier) @local)
(rest_pattern (identifier) @local)
(for_in_statement left: (identifier) @local)
(catch_clause parameter: (identifier) @local)

; ---------- object keys, for `def` at a key (see src/lang/members.rs) ----------
; A key names a member of what its object is: `{ a, b: c }` of a
; destructured value, `{ a: 1 }` of the type the literal is written for.
; A shorthand key (`{ a }`) also binds or reads the name `a`; a literal's
; key defines its member where no known type declares it.
(object (pair key: (property_identifier) @member.key @member.defines))
(object (shorthand_property_identifier) @member.key @member.shorthand)
(object (method_definition name: (property_identifier) @member.key @member.defines))
(object_pattern (shorthand_property_identifier_pattern) @member.key @member.shorthand)
(object_pattern (pair_pattern key: (property_identifier) @member.key))
(object_pattern (object_assignment_pattern
  left: (shorthand_property_identifier_pattern) @member.key @member.shorthand))

; `const { a } = value`, `({ a } = value)`, `for (const { a } of items)` is left out.
(variable_declarator name: (object_pattern) @member.literal value: (_) @member.object)
; `const { a } = options ?? {}`: the members of `options`.
(variable_declarator name: (object_pattern) @member.literal
  value: (binary_expression left: (_) @member.object operator: ["??" "||"]))
(assignment_expression left: (object_pattern) @member.literal right: (_) @member.object)
; `this.options = { a: 1 }`: what the target is declared or assigned to be.
(assignment_expression left: [(member_expression) (identifier)] @member.object
  right: [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal)
; `f({ a: 1 })`, `new C({ a: 1 })`: the callee's parameter at that position.
(call_expression function: (_) @member.callee
  arguments: (arguments [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal))
(new_expression constructor: (_) @member.callee
  arguments: (arguments [(object) (parenthesized_expression) (ternary_expression) (binary_expression)] @member.literal))
; `{ outer: { a: 1 } }`: a member of the outer key's type.
(pair key: (property_identifier) @member.outer value: (object) @member.literal)
; What a literal is written for reaches it through parentheses, a
; conditional's branches and a default's right side (`(c ? { a } : { b }) as
; T`, `options || { a: 1 }`).
(parenthesized_expression (_) @member.passes)
(ternary_expression consequence: (_) @member.passes)
(ternary_expression alternative: (_) @member.passes)
(binary_expression operator: ["??" "||" "&&"] right: (_) @member.passes)
(pair_pattern key: (property_identifier) @member.outer value: (object_pattern) @member.literal)
