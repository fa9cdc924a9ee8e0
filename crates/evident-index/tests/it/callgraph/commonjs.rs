//! CommonJS modules, from Node's module semantics: `require(path)` returns
//! what the module assigned to `module.exports` (or the `exports` object
//! its `exports.x = ...` filled); a module-level `var` is a binding of the
//! module like `const`.

use evident_index::{index_repo, Index, IndexOptions};

use super::{answers_at, edges, indexed_files};
use crate::common;

const FILES: &[(&str, &str)] = &[
    (
        "lib/layer.js",
        "function Layer(path) {\n  this.path = path;\n}\n\nLayer.prototype.match = function match(p) {\n  return p === this.path;\n};\n\nmodule.exports = Layer;\n",
    ),
    (
        "lib/utils.js",
        "exports.flatten = function flatten(list) {\n  return [].concat(list);\n};\n\nexports.wrap = function (f) {\n  return f;\n};\n",
    ),
    (
        "lib/express.js",
        "exports = module.exports = createApplication;\n\nfunction createApplication() {\n  return {};\n}\n",
    ),
    (
        "lib/router.js",
        "var Layer = require('./layer');\nvar { flatten, wrap: wrapped } = require('./utils');\nvar create = require('./express');\nvar slice = Array.prototype.slice;\n\nfunction route(path) {\n  var layer = new Layer(path);\n  var all = flatten(slice.call(arguments));\n  wrapped(all);\n  return create();\n}\nvar utils = require('./utils');\nmodule.exports = route;\n",
    ),
    (
        "app.mjs",
        "import Layer from './lib/layer.js';\nimport { flatten as fl } from './lib/utils.js';\nfl(new Layer('/'));\n",
    ),
];

#[test]
fn a_required_module_is_what_it_exports() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(root, FILES);
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "lib/router.js:7 Layer -> lib/layer.Layer",
        "lib/router.js:8 flatten -> lib/utils.flatten",
        "lib/router.js:9 wrapped -> lib/utils.wrap",
        "lib/router.js:10 create -> lib/express.createApplication",
    ] {
        assert!(
            all.iter().any(|e| e.starts_with(expected)),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    common::assert_equals_rebuild(root, "CommonJS modules");
}

#[test]
fn def_on_a_required_name_is_the_exported_definition() {
    let (_dir, index) = indexed();
    let at = |line, col| answers_at(&index, "lib/router.js", line, col);
    // `Layer` in `new Layer(path)`, and in the `require` line that binds it.
    assert_eq!(at(7, 19), ["lib/layer.js:1 Layer"]);
    assert_eq!(at(1, 5), ["lib/layer.js:1 Layer"]);
    // A destructured name, and a renamed one.
    assert_eq!(at(8, 13), ["lib/utils.js:1 flatten"]);
    assert_eq!(at(9, 3), ["lib/utils.js:5 wrap"]);
    // A module-level `var` is defined where it is bound.
    assert_eq!(at(8, 21), ["lib/router.js:4 slice"]);
    // A module that only fills `exports.x` is itself what `require` gives.
    assert_eq!(at(12, 6), ["lib/utils.js:1 lib/utils"]);
}

/// A name an import binds, on the import's own line: the imported
/// definition (the default export's, and the original name of a renamed one).
#[test]
fn def_on_an_imported_name_in_its_import_statement() {
    let (_dir, index) = indexed();
    let at = |line, col| answers_at(&index, "app.mjs", line, col);
    assert_eq!(at(1, 8), ["lib/layer.js:1 Layer"]);
    assert_eq!(at(2, 10), ["lib/utils.js:1 flatten"]);
    assert_eq!(at(2, 22), ["lib/utils.js:1 flatten"]);
}

/// The files above, indexed, and the index open.
fn indexed() -> (tempfile::TempDir, Index) {
    indexed_files(FILES)
}

/// A module-level `var`/`let` binds a name of the module whatever its value
/// (ECMAScript's VariableStatement), so `def` at a later use finds it.
#[test]
fn def_on_a_module_level_binding_of_any_value() {
    let source = "var app = exports = module.exports = {};\nlet cache = {};\nlet resolved;\n\
                  app.route = function route(path) { return cache[path] || resolved; };\n\
                  const { isArray, keys: getKeys } = Array;\nisArray(getKeys(app));\n";
    let (_dir, index) = indexed_files(&[("lib/app.js", source)]);
    let at = |col| answers_at(&index, "lib/app.js", 4, col);
    assert_eq!(at(1), ["lib/app.js:1 app"]);
    assert_eq!(at(43), ["lib/app.js:2 cache"]);
    assert_eq!(at(58), ["lib/app.js:3 resolved"]);
    // Names destructured at module level, each its own definition.
    let at = |col| answers_at(&index, "lib/app.js", 6, col);
    assert_eq!(at(1), ["lib/app.js:5 isArray"]);
    assert_eq!(at(9), ["lib/app.js:5 getKeys"]);
}

/// An exported `var` of a computed value is the module's binding too: the
/// name an import brings in resolves to it.
#[test]
fn def_on_an_imported_var_of_a_call() {
    let (_dir, index) = indexed_files(&[
        (
            "m.js",
            "export var store = create();\nfunction create() { return {}; }\n",
        ),
        (
            "u.js",
            "import { store } from './m';\nexport const s = store;\n",
        ),
    ]);
    assert_eq!(answers_at(&index, "u.js", 1, 10), ["m.js:1 store"]);
    assert_eq!(answers_at(&index, "u.js", 2, 18), ["m.js:1 store"]);
}

/// CommonJS's `exports` is the module itself where nothing binds the name:
/// `def` answers with the file; a parameter named `exports` is the parameter.
#[test]
fn def_on_exports_is_the_module() {
    let source = "exports.etag = function etag(body) { return body; };\n\
                  function wrap(exports) { return exports; }\n";
    let (_dir, index) = indexed_files(&[("lib/utils.js", source)]);
    let found = index.definition_at("lib/utils.js", 1, Some(1)).unwrap();
    let found: Vec<_> = found
        .iter()
        .map(|e| (e.path.as_str(), e.start_line, e.kind))
        .collect();
    assert_eq!(found, [("lib/utils.js", 1, evident_index::Kind::Module)]);
    assert_eq!(
        answers_at(&index, "lib/utils.js", 2, 33),
        ["lib/utils.js:2 exports"]
    );
}
