//! Forms that bind a name without a declaration of the usual shape, each
//! with its expected answer from the language's semantics (ECMAScript's
//! `var` hoisting, constructor functions, prototypes and default exports;
//! Python's import system and its statements that bind names): the misses
//! `bench/name_binding.py` found in half A of a published name-binding suite.

use evident_index::{index_repo, Index, IndexOptions};

use super::{answers_at_word, edges};
use crate::common;

const CONSTRUCTOR: &str = "function Foo() {\n  this.bar = 5;\n}\nFoo.prototype.hi = function () {\n  return this.bar;\n};\nlet x = new Foo();\nx.bar;\nx.hi();\n";
const CLASS_EXPRESSION: &str = "class Base { hi() {} }\nlet Store = class extends Base {\n  items;\n  add() { return this.items; }\n};\nlet s = new Store();\ns.items;\ns.add();\ns.hi();\n";
const DEFAULTS: &str =
    "import run from './run.js';\nimport Shape from './shape.js';\nrun();\nnew Shape().area();\n";
const SCOPES: &str = "try {\n  var y = 1;\n} finally {}\nfunction f() {\n  if (y) { var w = 2; let v = 3; }\n  undeclared = 4;\n  return w + v + undeclared;\n}\nalert(y, undeclared);\n";
const TS_SCOPES: &str = "function f() {\n  undeclared = 4;\n  return undeclared;\n}\n";

const PY_MAIN: &str = "from pkg.one import *\nfrom pkg.two import *\nfrom pkg import VERSION\nprint(a, b, VERSION)\ntry:\n    pass\nexcept OSError as e:\n    print(e)\nclass G:\n    if a:\n        nested = 1\n    print(nested)\nprint(nested)\ntry:\n    import ssl\nexcept ImportError:\n    ssl = None\nprint(ssl)\n";
const PY_MATCH: &str = "def f(command):\n    match command:\n        case [\"go\", where] | [\"walk\", where]:\n            return where\n        case Point(x=px, y=0):\n            return px\n        case [first, *rest]:\n            return rest\n        case Color.RED:\n            return Color\n";

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("web/constructor.js", CONSTRUCTOR),
        ("web/store.js", CLASS_EXPRESSION),
        (
            "web/run.js",
            "export default function () {\n  return 1;\n}\n",
        ),
        ("web/shape.js", "export default class {\n  area() {}\n}\n"),
        ("web/app.js", DEFAULTS),
        ("web/scopes.js", SCOPES),
        ("web/scopes.ts", TS_SCOPES),
        ("pkg/__init__.py", "VERSION = '1'\n"),
        ("pkg/one.py", "a = 1\nb = 2\n"),
        ("pkg/two.py", "b = 3\n"),
        ("pkg/main.py", PY_MAIN),
        ("pkg/patterns.py", PY_MATCH),
    ]
}

fn indexed() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    evident_testkit::fs::write_all(dir.path(), &files());
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    let index = Index::open(dir.path()).unwrap();
    (dir, index)
}

#[test]
fn constructor_functions_and_prototype_methods() {
    let (dir, index) = indexed();
    let at = |line, word, nth| {
        answers_at_word(&index, ("web/constructor.js", CONSTRUCTOR), line, word, nth)
    };
    // `this.bar = 5` in a function run with `new` sets its instance's `bar`.
    assert_eq!(at(8, "bar", 0), ["web/constructor.js:2 bar"]);
    assert_eq!(at(5, "bar", 0), ["web/constructor.js:2 bar"]);
    // `Foo.prototype.hi = function` is a method of Foo's instances.
    assert_eq!(at(9, "hi", 0), ["web/constructor.js:4 hi"]);
    let all = edges(dir.path());
    assert!(
        all.iter()
            .any(|e| e.starts_with("web/constructor.js:9 x.hi -> web/constructor.Foo.hi")),
        "{}",
        all.join("\n")
    );
}

#[test]
fn a_class_expression_bound_to_a_name_is_that_class() {
    let (_dir, index) = indexed();
    let at = |line, word, nth| {
        answers_at_word(&index, ("web/store.js", CLASS_EXPRESSION), line, word, nth)
    };
    assert_eq!(at(7, "items", 0), ["web/store.js:3 items"]);
    assert_eq!(at(8, "add", 0), ["web/store.js:4 add"]);
    // Its `extends` clause is a base like a declaration's.
    assert_eq!(at(9, "hi", 0), ["web/store.js:1 hi"]);
}

#[test]
fn an_anonymous_default_export_is_what_its_importers_name() {
    let (_dir, index) = indexed();
    let at = |line, word, nth| answers_at_word(&index, ("web/app.js", DEFAULTS), line, word, nth);
    assert_eq!(at(3, "run", 0), ["web/run.js:1 default"]);
    assert_eq!(at(4, "Shape", 0), ["web/shape.js:1 default"]);
    assert_eq!(at(4, "area", 0), ["web/shape.js:2 area"]);
}

#[test]
fn var_belongs_to_its_function_and_an_undeclared_assignment_binds() {
    let (_dir, index) = indexed();
    let at = |line, word, nth| answers_at_word(&index, ("web/scopes.js", SCOPES), line, word, nth);
    // A `var` in a block is its function's (here the file's top level).
    assert_eq!(at(5, "y", 0), ["web/scopes.js:2 y"]);
    assert_eq!(at(9, "y", 0), ["web/scopes.js:2 y"]);
    assert_eq!(at(7, "w", 0), ["web/scopes.js:5 w"]);
    // `let` stays in its block.
    assert!(at(7, "v", 0).is_empty());
    // An assignment to an undeclared name binds it in its function, not outside it.
    assert_eq!(at(7, "undeclared", 0), ["web/scopes.js:6 undeclared"]);
    assert!(at(9, "undeclared", 0).is_empty());
    // TypeScript refuses an undeclared name: it binds nothing.
    let ts = |line, word| answers_at_word(&index, ("web/scopes.ts", TS_SCOPES), line, word, 0);
    assert!(ts(3, "undeclared").is_empty());
}

#[test]
fn python_globs_package_names_and_statement_bindings() {
    let (dir, index) = indexed();
    let at = |line, word, nth| answers_at_word(&index, ("pkg/main.py", PY_MAIN), line, word, nth);
    // `from m import *`: the module's name; a later glob rebinds an earlier one.
    assert_eq!(at(4, "a", 0), ["pkg/one.py:1 a"]);
    assert_eq!(at(4, "b", 0), ["pkg/two.py:1 b"]);
    // `from pkg import VERSION`: a name the package's `__init__.py` defines.
    assert_eq!(at(4, "VERSION", 0), ["pkg/__init__.py:1 VERSION"]);
    // Bound at the top level by a statement that defines nothing.
    assert_eq!(at(8, "e", 0), ["pkg/main.py:7 e"]);
    // A class body binds for itself, not for the module.
    assert_eq!(at(12, "nested", 0), ["pkg/main.py:11 nested"]);
    assert!(at(13, "nested", 0).is_empty());
    // A name also imported from outside the repository is that import's.
    assert!(at(18, "ssl", 0).is_empty());
    common::assert_equals_rebuild(dir.path(), "binding forms");
}

#[test]
fn python_match_patterns_capture_bare_names() {
    let (_dir, index) = indexed();
    let at = |line, word| answers_at_word(&index, ("pkg/patterns.py", PY_MATCH), line, word, 0);
    assert_eq!(at(4, "where"), ["pkg/patterns.py:3 where"]);
    assert_eq!(at(6, "px"), ["pkg/patterns.py:5 px"]);
    assert_eq!(at(8, "rest"), ["pkg/patterns.py:7 rest"]);
    // A dotted name is a value pattern: it binds nothing.
    assert!(at(10, "Color").is_empty());
}
