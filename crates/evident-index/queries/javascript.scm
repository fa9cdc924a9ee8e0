; ---------- definitions ----------
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression)])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression)])) @definition.function
; A class expression bound to a name is that class: `const Store = class { ... }`.
(lexical_declaration (variable_declarator name: (identifier) @name value: (class))) @definition.class
(variable_declaration (variable_declarator name: (identifier) @name value: (class))) @definition.class
(program (lexical_declaration "const" (variable_declarator name: (identifier) @name
  value: [(number) (string) (template_string) (object) (array)])) @definition.constant)
(program (export_statement (lexical_declaration "const" (variable_declarator name: (identifier) @name
  value: [(number) (string) (template_string) (object) (array)])) @definition.constant))
; An object literal of functions bound in a function body is a namespace
; its methods belong to, as a module-level one is: `const b = { a() {} };
; b.a()`. Other local bindings are not definitions.
(statement_block (lexical_declaration "const" (variable_declarator name: (identifier) @name
                   value: (object [(pair value: [(arrow_function) (function_expression)])
                                   (method_definition)]))) @definition.constant)
(statement_block [(lexical_declaration "let" (variable_declarator name: (identifier) @name
                   value: (object [(pair value: [(arrow_function) (function_expression)])
                                   (method_definition)])))
                  (variable_declaration (variable_declarator name: (identifier) @name
                   value: (object [(pair value: [(arrow_function) (function_expression)])
                                   (method_definition)])))] @definition.variable)
; Module-level bindings of computed values: `const app = express()`, `let n = a.b`,
; `var slice = Array.prototype.slice`. A `require('./m')` binding is an import, below.
(program [(lexical_declaration (variable_declarator name: (identifier) @name
           value: [(new_expression) (member_expression) (identifier) (await_expression)
                   (binary_expression) (ternary_expression)]))
          (variable_declaration (variable_declarator name: (identifier) @name
           value: [(new_expression) (member_expression) (identifier) (await_expression)
                   (binary_expression) (ternary_expression)]))] @definition.variable)
((program [(lexical_declaration (variable_declarator name: (identifier) @name
            value: (call_expression function: (_) @_callee)))
           (variable_declaration (variable_declarator name: (identifier) @name
            value: (call_expression function: (_) @_callee)))] @definition.variable)
  (#not-eq? @_callee "require"))
(program (export_statement [(lexical_declaration (variable_declarator name: (identifier) @name
  value: [(call_expression) (new_expression) (member_expression) (identifier) (await_expression)
          (binary_expression) (ternary_expression)]))
                            (variable_declaration (variable_declarator name: (identifier) @name
  value: [(call_expression) (new_expression) (member_expression) (identifier) (await_expression)
          (binary_expression) (ternary_expression)]))] @definition.variable))
; The other module-level bindings: `var app = exports = module.exports = {}`,
; `let cache = {}`, `var ready = false`, `let resolved;` (a `const` literal is a constant, above).
(program [(variable_declaration (variable_declarator name: (identifier) @name
           value: [(assignment_expression) (object) (array) (true) (false) (null) (undefined) (number)
                   (string) (template_string) (regex) (unary_expression) (parenthesized_expression)]))
          (lexical_declaration "let" (variable_declarator name: (identifier) @name
           value: [(assignment_expression) (object) (array) (true) (false) (null) (undefined) (number)
                   (string) (template_string) (regex) (unary_expression) (parenthesized_expression)]))
          (lexical_declaration "const" (variable_declarator name: (identifier) @name
           value: [(assignment_expression) (true) (false) (null) (undefined) (regex) (unary_expression)
                   (parenthesized_expression)]))
          (variable_declaration (variable_declarator name: (identifier) @name !value))
          (lexical_declaration (variable_declarator name: (identifier) @name !value))] @definition.variable)
; Module-level names destructured from a value (`const { isArray } = Array`;
; from `require(...)` they are imports): each name is its own definition.
(program [(lexical_declaration (variable_declarator
           name: (object_pattern [(shorthand_property_identifier_pattern) @name @definition.variable
                                  (pair_pattern value: (identifier) @name @definition.variable)])
           value: [(identifier) (member_expression)]))
          (variable_declaration (variable_declarator
           name: (object_pattern [(shorthand_property_identifier_pattern) @name @definition.variable
                                  (pair_pattern value: (identifier) @name @definition.variable)])
           value: [(identifier) (member_expression)]))])
(program (export_statement [(variable_declaration (variable_declarator name: (identifier) @name !value))
                            (lexical_declaration (variable_declarator name: (identifier) @name !value))
                            (lexical_declaration "let" (variable_declarator name: (identifier) @name
                             value: [(object) (array) (true) (false) (null) (number) (string)]))]
  @definition.variable))

; An anonymous default export (`export default function () {}`, `export default
; class {}`) is a definition named `default`, the name its importers ask for
; (ECMAScript names the function `default` too).
(export_statement "default" @name
  value: [(function_expression !name) (generator_function !name) (arrow_function)]) @definition.function
(export_statement "default" @name value: (class !name)) @definition.class

; A prototype method: `Foo.prototype.hi = function () {}` is a method of `Foo`;
; `http.ServerResponse.prototype.render = function () {}` of `http.ServerResponse`.
((expression_statement (assignment_expression
  left: (member_expression
    object: (member_expression object: [(identifier) (member_expression)] @receiver
                               property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)])) @definition.method
  (#eq? @_prototype "prototype"))

; CommonJS: `exports.helper = function () {}`, `module.exports.helper = () => {}`.
((expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)])) @definition.function
  (#eq? @_exports "exports"))
((expression_statement (assignment_expression
  left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
                           property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)])) @definition.function
  (#eq? @_module "module") (#eq? @_exports "exports"))

; ---------- imports ----------
; import './side';  (kept only when the statement binds nothing else)
(import_statement source: (string (string_fragment) @import.module)) @import
; import x from './m';
((import_statement (import_clause (identifier) @import.alias)
  source: (string (string_fragment) @import.module)) @import
  (#set! import.name "default"))
; import {a, b as c} from './m';
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.module)) @import
; import * as ns from './m';
(import_statement (import_clause (namespace_import (identifier) @import.alias) @import.wildcard)
  source: (string (string_fragment) @import.module)) @import
; export {a as b} from './m';  export * from './m';
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.module)) @import
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.module)) @import
; require('./m');  (kept only when the call binds nothing, as above)
((call_expression function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.module))) @import
  (#eq? @_require "require"))
; const m = require('./m'): what the module exports (`module.exports = ...`).
((variable_declarator name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.module))) @import)
  (#eq? @_require "require") (#set! import.name "default"))
; const {a, b: c} = require('./m')
((variable_declarator
  name: (object_pattern [(shorthand_property_identifier_pattern) @import.name
                         (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias)])
  value: (call_expression function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.module))) @import)
  (#eq? @_require "require"))
; import('./m')
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module))) @import

; ---------- calls ----------
(call_expression function: (_) @call.callee arguments: (arguments)? @call.arguments) @call
(new_expression constructor: (_) @call.callee arguments: (arguments)? @call.arguments) @call

; ---------- local bindings from constructors: `const x = new Cls()` ----------
(variable_declarator name: (identifier) @assign.name value: (new_expression constructor: (_) @assign.value)) @assign

; ---------- more bindings, for the types that flow (see `Binding`) ----------
; `export default function helper() {}`, `export default helper`: what the
; module's `default` is, for `import run from './m'`.
((export_statement "default" declaration: [(function_declaration name: (identifier) @assign.alias)
                                           (class_declaration name: (_) @assign.alias)]) @assign
  (#set! assign.name "default"))
((export_statement "default" value: [(identifier) (member_expression)] @assign.alias) @assign
  (#set! assign.name "default"))
; `export { f as g }` (no source): the module's `g` is its `f`, for
; `import { g } from './m'` and `m.g`.
((export_statement (export_clause (export_specifier name: (identifier) @assign.alias
                                                    alias: (identifier) @assign.name))
  !source) @assign)
; CommonJS: `module.exports = helper` (and `exports = module.exports = helper`)
; is the module's `default`, what `const h = require('./m')` binds.
((assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(identifier) (member_expression)] @assign.alias) @assign
  (#eq? @_module "module") (#eq? @_exports "exports") (#set! assign.name "default"))
(variable_declarator name: (identifier) @assign.name
  value: (call_expression function: [(identifier) (member_expression)] @assign.value)) @assign
(variable_declarator name: (identifier) @assign.name value: [(identifier) (member_expression)] @assign.alias) @assign
; `const { store } = this`: each name is the value's member of that name.
((variable_declarator
  name: (object_pattern [(shorthand_property_identifier_pattern) @assign.name
                         (object_assignment_pattern left: (shorthand_property_identifier_pattern) @assign.name)])
  value: [(identifier) (member_expression) (this)] @assign.alias) @assign
  (#set! assign.member "name"))
; `({ store } = this)`: the same, assigned without a declaration.
((assignment_expression
  left: (object_pattern [(shorthand_property_identifier_pattern) @assign.name
                         (object_assignment_pattern left: (shorthand_property_identifier_pattern) @assign.name)])
  right: [(identifier) (member_expression) (this)] @assign.alias) @assign
  (#set! assign.member "name"))
; `const { a: foo } = b`, `({ a: foo } = b)`: the name is the value's member
; that the key names.
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @assign.key
                                      value: (identifier) @assign.name))
  value: [(identifier) (member_expression) (this)] @assign.alias) @assign
(assignment_expression
  left: (object_pattern (pair_pattern key: (property_identifier) @assign.key
                                      value: (identifier) @assign.name))
  right: [(identifier) (member_expression) (this)] @assign.alias) @assign
; Literals: `const parts = []`, `let s = ''`: an instance of the builtin type
; (object literals are not: their members are the code's own).
((variable_declarator name: (identifier) @assign.name value: (array) @assign.type) @assign (#set! assign.type "Array"))
((variable_declarator name: (identifier) @assign.name value: [(string) (template_string)] @assign.type) @assign
  (#set! assign.type "String"))
; Containers (see `ELEMENTS`): `const ops = {add, sub: minus}`, `const steps = [a, b]`
; bind what their elements hold; `for (const step of steps)` binds each element.
((variable_declarator name: (identifier) @assign.name
  value: (object [(pair value: [(identifier) (member_expression)] @assign.alias)
                  (shorthand_property_identifier) @assign.alias])) @assign
  (#set! assign.element "name"))
((variable_declarator name: (identifier) @assign.name
  value: (array [(identifier) (member_expression)] @assign.alias)) @assign
  (#set! assign.element "name"))
((for_in_statement left: (identifier) @assign.name operator: "of" right: [(identifier) (member_expression)] @assign.alias) @assign
  (#set! assign.element "value"))
; `this.store = new Store()`: an attribute of the instance.
(assignment_expression left: (member_expression object: (this)) @assign.name
  right: (new_expression constructor: (_) @assign.value)) @assign
(assignment_expression left: (member_expression object: (this)) @assign.name
  right: [(identifier) (member_expression)] @assign.alias) @assign
; What a function returns.
((return_statement (new_expression constructor: (_) @assign.value) @assign) (#set! assign.name "return"))
((return_statement (call_expression function: [(identifier) (member_expression)] @assign.value) @assign)
  (#set! assign.name "return"))
((return_statement [(identifier) (member_expression)] @assign.alias @assign) (#set! assign.name "return"))
