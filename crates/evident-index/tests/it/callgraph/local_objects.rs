//! ECMAScript's object literals bound in a function body, and destructuring
//! (the specification's `ObjectBindingPattern` and `ObjectAssignmentPattern`):
//! `const b = { a() {} }` inside a function is a namespace as a module-level
//! one is, so `b.a()` is its method; `const { a } = b`, `({ a } = b)` and
//! `const { a: foo } = b` bind each name to the member its key names.

use evident_index::{index_repo, IndexOptions};

use super::edges;
use crate::common;

const SOURCE: &str = "function run() {
  const b = { a: () => 1, c() { return 2; } };
  b.a();
  b.c();
  const { a } = b;
  a();
  const { c: renamed } = b;
  renamed();
  let later;
  ({ a: later } = b);
  later();
}
";

#[test]
fn a_local_object_literal_is_the_namespace_of_its_functions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for file in ["m.js", "m.ts"] {
        evident_testkit::fs::write_all(root, &[(file, SOURCE)]);
    }
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    // TypeScript takes a literal's members from types, so a function-valued
    // key is no definition there: only the method counts.
    for expected in [
        "m.js:3 b.a -> m.run.b.a",
        "m.js:4 b.c -> m.run.b.c",
        "m.js:6 a -> m.run.b.a",
        "m.js:8 renamed -> m.run.b.c",
        "m.js:11 later -> m.run.b.a",
        "m.ts:4 b.c -> m.run.b.c",
        "m.ts:8 renamed -> m.run.b.c",
    ] {
        assert!(
            all.iter().any(|e| e.starts_with(expected)),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    common::assert_equals_rebuild(root, "local object literals");
}
