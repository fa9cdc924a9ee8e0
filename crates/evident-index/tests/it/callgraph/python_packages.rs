//! Python's import system where a package holds a module named like a
//! standard one: inside a package, `import html` is absolute (PEP 328) and
//! names the standard module, never the package's own `html.py`; only a
//! script's directory (no `__init__.py`: run as `python tools/run.py`, the
//! directory is on `sys.path`) lends its siblings. And `*args` and
//! `**options` are a tuple and a dict, annotated or not (the annotation
//! types their elements).

use evident_index::{index_repo, IndexOptions};

use super::{edges, externals};
use crate::common;

const ESCAPE: &str = "def escape(text):\n    return text\n";
const CALLER: &str = "import html\n\n\ndef show(text):\n    return html.escape(text)\n";

#[test]
fn an_absolute_import_in_a_package_never_names_its_sibling() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            ("pkg/__init__.py", ""),
            ("pkg/html.py", ESCAPE),
            ("pkg/page.py", CALLER),
            ("tools/html.py", ESCAPE),
            ("tools/run.py", CALLER),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let (all, outside) = (edges(root), externals(root));
    let script = "tools/run.py:5 html.escape -> tools.html.escape";
    assert!(all.iter().any(|e| e.starts_with(script)), "{all:#?}");
    assert!(
        !all.iter().any(|e| e.starts_with("pkg/page.py:5")),
        "{all:#?}"
    );
    let standard = "pkg/page.py:5 html.escape -> html.escape (external)";
    assert!(outside.iter().any(|e| e == standard), "{outside:#?}");

    // An `__init__.py` makes the script's directory a package.
    std::fs::write(root.join("tools/__init__.py"), "").unwrap();
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(
        !all.iter().any(|e| e.starts_with("tools/run.py:5")),
        "{all:#?}"
    );
    common::assert_equals_rebuild(root, "a directory that became a package");
}

#[test]
fn annotated_star_parameters_are_a_tuple_and_a_dict() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = "from typing import Any\n\n\ndef f(*args: Any, **options: Any):\n    options.get(\"a\")\n    return args.count(1)\n";
    evident_testkit::fs::write_all(root, &[("m.py", source)]);
    index_repo(root, &IndexOptions::default()).unwrap();
    let outside = externals(root);
    for expected in [
        "m.py:5 options.get -> dict.get (builtin)",
        "m.py:6 args.count -> tuple.count (builtin)",
    ] {
        assert!(
            outside.iter().any(|e| e == expected),
            "missing {expected}\n{outside:#?}"
        );
    }
}
