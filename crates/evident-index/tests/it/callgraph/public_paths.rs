//! A definition by the path its package's users write: `pkg.Widget` for
//! `pkg._impl.Widget`, through what a module exports (a package's
//! `__init__.py`, `export * from`). `symbol`, the graph queries and a
//! search's spans all read it the same way.

use evident_index::{index_repo, Index, IndexOptions, SearchGroup, SearchQuery, SymbolQuery};
use evident_testkit::fs::write_in as write;

fn package() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pkg/__init__.py", "from ._impl import Widget, make\n");
    write(
        root,
        "pkg/_impl.py",
        "class Widget:\n    def render(self):\n        return 1\n\n\ndef make():\n    return Widget().render()\n",
    );
    write(
        root,
        "app.py",
        "import pkg\n\n\ndef main():\n    return pkg.make()\n",
    );
    write(root, "lib/index.js", "export * from './shapes.js'\n");
    write(
        root,
        "lib/shapes.js",
        "export function circle(r) {\n  return r * r\n}\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    dir
}

#[test]
fn symbol_reads_a_public_path_through_the_packages_exports() {
    let dir = package();
    let index = Index::open(dir.path()).unwrap();
    let found = |name: &str| -> Vec<(String, String)> {
        let hits = index.symbols(name, &SymbolQuery::default()).unwrap();
        hits.into_iter()
            .map(|e| (e.path, e.qualified_name.unwrap_or_default()))
            .collect()
    };
    assert_eq!(
        found("pkg.Widget"),
        [("pkg/_impl.py".to_string(), "pkg._impl.Widget".to_string())]
    );
    assert_eq!(
        found("pkg.Widget.render"),
        [(
            "pkg/_impl.py".to_string(),
            "pkg._impl.Widget.render".to_string()
        )]
    );
    assert_eq!(found("lib.circle")[0].0, "lib/shapes.js");
    let reason = index.symbols("pkg.make", &SymbolQuery::default()).unwrap()[0]
        .reason
        .clone()
        .unwrap_or_default();
    assert!(reason.contains("exported by its module"), "{reason}");
    // A name the package does not export is still nothing.
    assert!(found("pkg.render").is_empty());
    assert!(found("pkg.Gadget").is_empty());
}

#[test]
fn callers_and_search_read_the_public_path_too() {
    let dir = package();
    let index = Index::open(dir.path()).unwrap();
    let callers = index.callers("pkg.make", None, 1).unwrap();
    assert!(callers.iter().any(|e| e.path == "app.py"), "{callers:#?}");
    let q = SearchQuery {
        group: SearchGroup::File,
        ..crate::common::chunk_query("Calling pkg.make() twice draws nothing")
    };
    let found = index.search(&q).unwrap();
    assert_eq!(found[0].path, "pkg/_impl.py");
    let reason = found[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("named in the query: name `pkg.make`"),
        "{reason}"
    );
}
