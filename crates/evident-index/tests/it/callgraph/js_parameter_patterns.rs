//! ECMAScript bindings a call must respect: a name that a destructured
//! parameter binds (a `BindingPattern` in `FormalParameters`) is the
//! function's own and hides the module's name, though no call says what it
//! holds; `a = b` makes `a` hold what `b` holds; and a method binds no
//! name of its own (only a function declaration or expression does).

use evident_index::{index_repo, IndexOptions};

use super::edges;
use crate::common;

const SOURCE: &str = "let v = function () { return 0; };
function run() { return 1; }
function f({ u: { v } }, [first], { run }) {
  v();
  first();
  run();
}
function main() {
  let a = 1;
  let b = function named() { return 2; };
  a = b;
  a();
}
v();
run();
";

#[test]
fn destructured_parameters_hide_outer_names_and_an_assignment_aliases() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(root, &[("m.js", SOURCE)]);
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "m.js:12 a -> m.main.b",
        "m.js:14 v -> m.v",
        "m.js:15 run -> m.run",
    ] {
        assert!(
            all.iter().any(|e| e.starts_with(expected)),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    for hidden in ["m.js:4 ", "m.js:5 ", "m.js:6 "] {
        assert!(
            !all.iter().any(|e| e.starts_with(hidden)),
            "a parameter's name reaches outside: {hidden}\n{}",
            all.join("\n")
        );
    }
    common::assert_equals_rebuild(root, "destructured parameters");
}

/// A method is reached through its object, never by its bare name (ECMAScript
/// binds no name for a method, unlike a named function expression): in
/// `setTimeout() { return setTimeout(...) }` the inner name is the global.
#[test]
fn a_methods_own_name_is_not_bound_in_its_body() {
    let source = "export const provider = {\n  setTimeout(handler) {\n    return setTimeout(handler, 0);\n  },\n};\nfunction again(n) {\n  return n && again(n - 1);\n}\n";
    for path in ["timers.js", "timers.ts"] {
        let (_dir, index) = super::indexed_files(&[(path, source)]);
        let inner = super::answers_at_word(&index, (path, source), 3, "setTimeout", 0);
        assert!(inner.is_empty(), "{path}: {inner:?}");
        let own = super::answers_at_word(&index, (path, source), 2, "setTimeout", 0);
        assert_eq!(own, [format!("{path}:2 setTimeout")], "{path}");
        // A function declaration's name is bound in its body.
        let recursive = super::answers_at_word(&index, (path, source), 7, "again", 0);
        assert_eq!(recursive, [format!("{path}:6 again")], "{path}");
    }
}
