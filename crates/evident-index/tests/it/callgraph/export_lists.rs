//! ECMAScript's export lists (the specification's `ExportSpecifier`):
//! `export { f as g }` exports the local `f` under the name `g`, so an
//! importer's `g` (named, or a namespace's member) is `f`.

use evident_index::{index_repo, Index, IndexOptions};

use super::{answers_at_word, edges};
use crate::common;

const EXPORTING: &str = "function f() {}\nclass Shape {}\nexport { f as g, Shape as Form };\n";
const IMPORTING: &str = "import { g, Form } from './a.js';\nimport * as mod from './a.js';\n\ng();\nmod.g();\nnew Form();\n";

#[test]
fn a_renamed_export_is_what_it_renames() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (a, b) in [("a.js", "b.js"), ("a.ts", "b.ts")] {
        let importing = IMPORTING.replace("./a.js", &format!("./{}", a));
        evident_testkit::fs::write_all(root, &[(a, EXPORTING), (b, importing.as_str())]);
    }
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "b.js:4 g -> a.f",
        "b.js:5 mod.g -> a.f",
        "b.js:6 Form -> a.Shape",
        "b.ts:4 g -> a.f",
        "b.ts:5 mod.g -> a.f",
    ] {
        assert!(
            all.iter().any(|e| e.starts_with(expected)),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    let index = Index::open(root).unwrap();
    let importing = IMPORTING.to_string();
    let at = |line, word| answers_at_word(&index, ("b.js", importing.as_str()), line, word, 0);
    assert_eq!(at(4, "g"), ["a.js:1 f"]);
    common::assert_equals_rebuild(root, "export lists");
}
