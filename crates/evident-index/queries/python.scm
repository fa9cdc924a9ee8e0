; ---------- definitions ----------
(class_definition name: (identifier) @name) @definition.class
(class_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.class
(class_definition name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute)] @base)) @definition.class
(function_definition name: (identifier) @name) @definition.function
(function_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.function
; `@overload` (`typing.overload`, `t.overload`) signatures declare: a call runs
; the definition of the same name that follows them.
((decorated_definition
   (decorator [(identifier) @_overload (attribute attribute: (identifier) @_overload)])
   definition: (function_definition name: (identifier) @name) @definition.function)
  (#eq? @_overload "overload")
  (#set! definition.declaration "true"))

(module (expression_statement (assignment left: (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable
  (#not-match? @name "^[A-Z][A-Z0-9_]*$"))
; `a, (b, *c) = ...` at the top level binds each name in the module (each
; name is its own definition: they share one statement).
(module (expression_statement (assignment left: [
  (pattern_list [(identifier) @name @definition.variable
                 (list_splat_pattern (identifier) @name @definition.variable)
                 (tuple_pattern [(identifier) @name @definition.variable
                                 (list_splat_pattern (identifier) @name @definition.variable)])])
  (tuple_pattern [(identifier) @name @definition.variable
                  (list_splat_pattern (identifier) @name @definition.variable)
                  (tuple_pattern [(identifier) @name @definition.variable
                                  (list_splat_pattern (identifier) @name @definition.variable)])])])))
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
(call function: (_) @call.callee arguments: (argument_list)? @call.arguments) @call
; A decorator is called with the definition: `@register def f` calls
; `register(f)`; `@route("/") def f` calls `route("/")` (a call already) and
; then what it returns with `f`.
(decorated_definition (decorator [(identifier) (attribute) (call)] @call.callee) @call
  definition: [(function_definition name: (identifier) @call.argument)
               (class_definition name: (identifier) @call.argument)])

; ---------- bindings, for the types that flow (see `Binding`) ----------
; `x = f(...)`, `self.x = f(...)`, `for x in f(...)`: the call's result.
(assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: (call function: [(identifier) (attribute)] @assign.value)) @assign
(for_statement left: (identifier) @assign.name
  right: (call function: [(identifier) (attribute)] @assign.value)) @assign
; `b = f`, `r = a.run`, `self.x = x`: another name.
(assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: [(identifier) (attribute)] @assign.alias) @assign
; `a, b = f, g`, `a, (b, c) = f, (g(), h)`, `a, *rest = ...`, and chains
; `a = b = f`: each name bound to what its position holds (`unpack.rs`).
((assignment left: [(pattern_list) (tuple_pattern) (list_pattern)] @assign.name right: (_) @assign.alias) @assign
  (#set! assign.unpack "true"))
((assignment left: (identifier) @assign.name right: (assignment) @assign.alias) @assign
  (#set! assign.unpack "true"))
; `raise Error`: raising a class makes an instance of it.
(raise_statement . [(identifier) (attribute)] @call.callee) @call
; `self.x = <any other expression>`, `self.a, self.b = ...`: where an
; attribute is set, although its value says nothing of its type.
((assignment left: (attribute object: (identifier) @_self attribute: (identifier)) @assign.name
  right: [(binary_operator) (boolean_operator) (comparison_operator) (unary_operator) (not_operator)
          (conditional_expression) (integer) (float) (true) (false) (none)
          (generator_expression) (subscript) (lambda) (await)] @assign.opaque) @assign
  (#any-of? @_self "self" "cls"))
((assignment left: [(pattern_list (attribute object: (identifier) @_self attribute: (identifier)) @assign.name)
                    (tuple_pattern (attribute object: (identifier) @_self attribute: (identifier)) @assign.name)]
  right: (_) @assign.opaque) @assign
  (#any-of? @_self "self" "cls"))
; Literals: `errors = []`, `sep = ", "`: an instance of the builtin type.
((assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: [(list) (list_comprehension)] @assign.type) @assign (#set! assign.type "list"))
((assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: [(dictionary) (dictionary_comprehension)] @assign.type) @assign (#set! assign.type "dict"))
((assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: [(set) (set_comprehension)] @assign.type) @assign (#set! assign.type "set"))
((assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: (tuple) @assign.type) @assign (#set! assign.type "tuple"))
((assignment left: [(identifier) (attribute object: (identifier))] @assign.name
  right: [(string) (concatenated_string)] @assign.type) @assign (#set! assign.type "str"))
; `__all__ = ["a", "b"]` (or `+=`): the names `from module import *` brings
; (see `Binding::Names`).
((module (expression_statement
  [(assignment left: (identifier) @assign.name right: (_) @assign.names)
   (augmented_assignment left: (identifier) @assign.name right: (_) @assign.names)] @assign))
  (#eq? @assign.name "__all__"))
; Containers (see `ELEMENTS`): `OPS = {"a": f}`, `steps = [a, b]`, `pair = (a, 1)`
; bind what their elements hold; `for step in steps` binds each element.
((assignment left: (identifier) @assign.name
  right: (dictionary (pair value: [(identifier) (attribute)] @assign.alias))) @assign
  (#set! assign.element "name"))
((assignment left: (identifier) @assign.name
  right: [(list [(identifier) (attribute)] @assign.alias)
          (tuple [(identifier) (attribute)] @assign.alias)
          (set [(identifier) (attribute)] @assign.alias)]) @assign
  (#set! assign.element "name"))
; `handlers["b"] = f`: the container holds `f` among its elements.
((assignment left: (subscript value: (identifier) @assign.name) right: [(identifier) (attribute)] @assign.alias) @assign
  (#set! assign.element "name"))
((for_statement left: (identifier) @assign.name right: [(identifier) (attribute)] @assign.alias) @assign
  (#set! assign.element "value"))
(for_statement left: (identifier) @assign.name
  right: [(list [(identifier) (attribute)] @assign.alias) (tuple [(identifier) (attribute)] @assign.alias)]) @assign
; `@d def f`: `f = d(f)`; the definition's name then holds what `d` returns
; (see `DECORATED`).
((decorated_definition (decorator [(identifier) (attribute) (call)] @assign.value)
  definition: (function_definition name: (identifier) @assign.name)) @assign
  (#set! assign.decorated "true"))
; Parameters by position, bound by each call of the function in its file.
(parameters [(identifier) @assign.name
             (default_parameter name: (identifier) @assign.name)
             (typed_parameter (identifier) @assign.name)
             (typed_default_parameter name: (identifier) @assign.name)] @assign.parameter @assign)
; `def f(*args, **kwargs)`: a tuple and a dict.
((parameters (list_splat_pattern (identifier) @assign.name) @assign.type @assign) (#set! assign.type "tuple"))
((parameters (dictionary_splat_pattern (identifier) @assign.name) @assign.type @assign) (#set! assign.type "dict"))
; Annotated, the annotation types the elements (`**options: Any`): still a tuple and a dict.
((typed_parameter (list_splat_pattern (identifier) @assign.name)) @assign.type @assign (#set! assign.type "tuple"))
((typed_parameter (dictionary_splat_pattern (identifier) @assign.name)) @assign.type @assign (#set! assign.type "dict"))
; Annotations: `x: Foo = ...`, `def f(x: Foo)`.
(assignment left: [(identifier) (attribute object: (identifier))] @assign.name type: (type) @assign.type) @assign
(typed_parameter (identifier) @assign.name type: (type) @assign.type) @assign
(typed_default_parameter name: (identifier) @assign.name type: (type) @assign.type) @assign
; Parameter defaults: `def f(handler=default)`.
(default_parameter name: (identifier) @assign.name value: [(identifier) (attribute)] @assign.alias) @assign
; What a function returns (or yields): `-> Foo`, `return Foo()`, `return inner`.
((function_definition return_type: (type) @assign.type @assign) (#set! assign.name "return"))
((return_statement (call function: [(identifier) (attribute)] @assign.value) @assign) (#set! assign.name "return"))
((return_statement [(identifier) (attribute)] @assign.alias @assign) (#set! assign.name "return"))
((yield (call function: [(identifier) (attribute)] @assign.value) @assign) (#set! assign.name "return"))
