//! Python's `from module import *`: when the module sets `__all__`, the
//! import binds the names listed there and no others (the language
//! reference, "The import statement"); without `__all__`, every name that
//! does not start with `_`; with one this index cannot read as literals,
//! every name.

use evident_index::{index_repo, Index, IndexOptions};

use super::{answers_at_word, edges};
use crate::common;

const LISTED: &str = "__all__ = [\"shown\", 'Kept']  # what `*` brings\n__all__ += (\"later\",)\n\n\ndef shown():\n    pass\n\n\ndef hidden():\n    pass\n\n\ndef later():\n    pass\n\n\nclass Kept:\n    pass\n";
const EXTENDED: &str = "__all__ = [\"grown\"]\n__all__.extend([\"added\"])\n\n\ndef grown():\n    pass\n\n\ndef added():\n    pass\n";
const PLAIN: &str = "def public():\n    pass\n\n\ndef _private():\n    pass\n";
const USER: &str = "from pkg.listed import *\nfrom pkg.extended import *\nfrom pkg.plain import *\n\nshown()\nhidden()\nlater()\nKept()\nadded()\npublic()\n_private()\n";
const REEXPORTING: &str = "from pkg.listed import *\n";
const CLIENT: &str = "from pkg import shown, hidden\n\nshown()\nhidden()\n";

fn files(listed: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("pkg/__init__.py", REEXPORTING),
        ("pkg/listed.py", listed),
        ("pkg/extended.py", EXTENDED),
        ("pkg/plain.py", PLAIN),
        ("pkg/user.py", USER),
        ("pkg/client.py", CLIENT),
    ]
}

fn exact(all: &[String], at: &str) -> bool {
    all.iter()
        .any(|e| e.starts_with(at) && e.ends_with("(exact)"))
}

#[test]
fn a_glob_import_brings_only_the_names_all_lists() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(root, &files(LISTED));
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    let show = all.join("\n");
    // Listed (by `=` and by `+=`): bound by the glob import.
    assert!(
        exact(&all, "pkg/user.py:5 shown -> pkg.listed.shown"),
        "{show}"
    );
    assert!(
        exact(&all, "pkg/user.py:7 later -> pkg.listed.later"),
        "{show}"
    );
    assert!(
        exact(&all, "pkg/user.py:8 Kept -> pkg.listed.Kept"),
        "{show}"
    );
    // Not listed: the glob does not bind it (at most a guess by name).
    assert!(!exact(&all, "pkg/user.py:6 hidden"), "{show}");
    // No `__all__`: every name but those that start with `_`.
    assert!(
        exact(&all, "pkg/user.py:10 public -> pkg.plain.public"),
        "{show}"
    );
    assert!(!exact(&all, "pkg/user.py:11 _private"), "{show}");
    // A list grown by a call is not read: every name counts.
    assert!(
        exact(&all, "pkg/user.py:9 added -> pkg.extended.added"),
        "{show}"
    );
    // Through a package that re-exports with a glob, the same.
    assert!(
        exact(&all, "pkg/client.py:3 shown -> pkg.listed.shown"),
        "{show}"
    );
    assert!(!exact(&all, "pkg/client.py:4 hidden"), "{show}");
    let index = Index::open(root).unwrap();
    let at = |line, word| answers_at_word(&index, ("pkg/user.py", USER), line, word, 0);
    assert_eq!(at(5, "shown"), ["pkg/listed.py:5 shown"]);
    assert_eq!(at(9, "added"), ["pkg/extended.py:9 added"]);
    common::assert_equals_rebuild(root, "glob imports and __all__");
}

#[test]
fn a_changed_all_equals_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(root, &files(LISTED));
    index_repo(root, &IndexOptions::default()).unwrap();
    // `hidden` listed now: the importers' calls resolve to it.
    let listing_hidden = LISTED.replacen("'Kept'", "'Kept', \"hidden\"", 1);
    evident_testkit::fs::write_all(root, &[("pkg/listed.py", listing_hidden.as_str())]);
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(
        exact(&all, "pkg/user.py:6 hidden -> pkg.listed.hidden"),
        "{}",
        all.join("\n")
    );
    assert!(
        exact(&all, "pkg/client.py:4 hidden -> pkg.listed.hidden"),
        "{}",
        all.join("\n")
    );
    common::assert_equals_rebuild(root, "__all__ gains a name");
    // And out again, `shown` with it.
    let fewer = LISTED.replacen("\"shown\", ", "", 1);
    evident_testkit::fs::write_all(root, &[("pkg/listed.py", fewer.as_str())]);
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(!exact(&all, "pkg/user.py:5 shown"), "{}", all.join("\n"));
    assert!(!exact(&all, "pkg/user.py:6 hidden"), "{}", all.join("\n"));
    common::assert_equals_rebuild(root, "__all__ loses names");
}
