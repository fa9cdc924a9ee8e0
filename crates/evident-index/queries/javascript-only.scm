; JavaScript's grammar only (TypeScript wraps heritage in `extends_clause`, see typescript.scm).
(class_declaration name: (_) @name (class_heritage [(identifier) (member_expression)] @base)) @definition.class
([(lexical_declaration (variable_declarator name: (identifier) @name
   value: (class (class_heritage [(identifier) (member_expression)] @base))))
  (variable_declaration (variable_declarator name: (identifier) @name
   value: (class (class_heritage [(identifier) (member_expression)] @base))))] @definition.class)

; A function assigned to an undeclared name at the top level is a global
; function of that name (sloppy mode): `handler = function () {}`.
(program (expression_statement (assignment_expression left: (identifier) @name
  right: [(function_expression) (arrow_function)])) @definition.function)
; `this.grow = function () {}` in a function run with `new`: a method of
; its instances (nested in the function, so its class's member).
(function_declaration body: (statement_block (expression_statement (assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.method)))

; A function assigned to a key of a module-level name is that name's method:
; `res.send = function (body) {}`, `app.init = () => {}` (objects built up
; key by key; `exports.run` is CommonJS's export, in javascript.scm).
((program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @receiver property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)])) @definition.method)
  (#not-any-of? @receiver "exports" "module"))

; A function-valued key of an object literal is a method: bound to a name,
; a member of that binding (`var obj = { run: function () {}, 'stop': () => {} }`
; makes `obj.run` and `obj.stop`; TypeScript's declared type decides there);
; passed to a call (`new Class({ run: function () {} })`, `res.format({ html:
; () => {} })`), a method of the code around it.
(object (pair key: (property_identifier) @name
  value: [(function_expression) (arrow_function)]) @definition.method)
(object (pair key: (string (string_fragment) @name)
  value: [(function_expression) (arrow_function)]) @definition.method)

; Class fields: `class A { count = 0; static limit = 3 }`.
(class_body (field_definition property: (property_identifier) @name) @definition.variable)

; Parameters by position, bound by each call of the function in its file
; (TypeScript wraps them in required_parameter, see typescript.scm).
(formal_parameters [(identifier) @assign.name
                    (assignment_pattern left: (identifier) @assign.name)] @assign.parameter @assign)
; Parameter defaults: `function run(handler = fallback)`.
(formal_parameters (assignment_pattern left: (identifier) @assign.name
                                       right: [(identifier) (member_expression)] @assign.alias) @assign)
; A name a destructured parameter binds (`function f({ run, opts: { retry } }, [first])`)
; is the function's own: it hides the names around it, by a value no
; position gives (two levels of patterns; deeper ones are rare).
(formal_parameters [(object_pattern (shorthand_property_identifier_pattern) @assign.name @assign.opaque @assign)
                    (object_pattern (pair_pattern value: (identifier) @assign.name @assign.opaque @assign))
                    (object_pattern (object_assignment_pattern
                      left: (shorthand_property_identifier_pattern) @assign.name @assign.opaque @assign))
                    (array_pattern (identifier) @assign.name @assign.opaque @assign)
                    (assignment_pattern left: (object_pattern (shorthand_property_identifier_pattern)
                                                @assign.name @assign.opaque @assign))])
(formal_parameters (object_pattern (pair_pattern value: [
  (object_pattern (shorthand_property_identifier_pattern) @assign.name @assign.opaque @assign)
  (array_pattern (identifier) @assign.name @assign.opaque @assign)])))
(formal_parameters (array_pattern [
  (object_pattern (shorthand_property_identifier_pattern) @assign.name @assign.opaque @assign)
  (array_pattern (identifier) @assign.name @assign.opaque @assign)]))

; `store = new Store()`, `handler = make()`: an assignment binds as a
; declaration does (every binding of a name counts; TypeScript's declared
; type decides there).
(assignment_expression left: (identifier) @assign.name
  right: (new_expression constructor: (_) @assign.value)) @assign
(assignment_expression left: (identifier) @assign.name
  right: (call_expression function: [(identifier) (member_expression)] @assign.value)) @assign
; `a = b`: `a` holds what `b` holds from here on (and, since every binding
; counts, wherever `a` is read).
(assignment_expression left: (identifier) @assign.name
  right: [(identifier) (member_expression)] @assign.alias) @assign

; An attribute set in a method or constructor function is the instance's
; (TypeScript declares its fields, and the declared type decides there):
; `this.run = make()`, `this.items = []`, `this.name = ''`.
(assignment_expression left: (member_expression object: (this)) @assign.name
  right: (call_expression function: [(identifier) (member_expression)] @assign.value)) @assign
((assignment_expression left: (member_expression object: (this)) @assign.name right: (array) @assign.type) @assign
  (#set! assign.type "Array"))
((assignment_expression left: (member_expression object: (this)) @assign.name
  right: [(string) (template_string)] @assign.type) @assign
  (#set! assign.type "String"))
; `this.count = 0`, `this.options = {}`: where the attribute is set, though
; its value says nothing the types can follow.
(assignment_expression left: (member_expression object: (this)) @assign.name
  right: [(number) (object) (true) (false) (null) (undefined) (regex) (binary_expression)
          (ternary_expression) (unary_expression) (update_expression) (arrow_function)
          (function_expression) (await_expression) (parenthesized_expression)
          (subscript_expression) (assignment_expression) (class)] @assign.opaque) @assign
