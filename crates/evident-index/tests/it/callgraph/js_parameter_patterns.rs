//! ECMAScript bindings a call must respect: a name that a destructured
//! parameter binds (a `BindingPattern` in `FormalParameters`) is the
//! function's own and hides the module's name, though no call says what it
//! holds; and `a = b` makes `a` hold what `b` holds.

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
