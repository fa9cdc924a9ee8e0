//! A name a function's first line declares though no definition is named
//! so: a named function expression (`var assign = function
//! assignSingleSource(…)`), the name its stack frames print (ECMAScript: the
//! function's `name`). `symbol`, `callers` and `def`'s SYMBOL arguments find
//! the function by it, after every match of a name of its own; a parameter,
//! a called name or a name in another module finds nothing.

use evident_index::{index_repo, Index, IndexOptions, SymbolQuery};
use evident_testkit::fs::write_in as write;

#[test]
fn a_named_function_expression_is_found_by_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "lib/utils.js",
        "var assign = function assignSingleSource(target, source) {\n  return merge(target, source);\n};\n\n\
         function merge(a, b) {\n  return Object.assign(a, b);\n}\n\n\
         module.exports = { assign: assign };\n",
    );
    write(
        root,
        "lib/main.js",
        "const utils = require('./utils');\n\nfunction main() {\n  return utils.assign({}, {});\n}\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let found = |name: &str| -> Vec<(String, u32, String)> {
        let hits = index.symbols(name, &SymbolQuery::default()).unwrap();
        hits.into_iter()
            .map(|e| (e.path, e.start_line, e.reason.unwrap_or_default()))
            .collect()
    };
    let hits = found("assignSingleSource");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!((hits[0].0.as_str(), hits[0].1), ("lib/utils.js", 1));
    assert!(hits[0].2.contains("first line declares"), "{hits:?}");
    assert_eq!(found("utils.assignSingleSource").len(), 1);
    // A parameter, a name the function calls, and another module's path.
    assert!(found("source").is_empty(), "{:?}", found("source"));
    assert!(found("main.assignSingleSource").is_empty());
    // Its callers by that name are the callers of `assign`.
    let callers = index.callers("assignSingleSource", None, 1).unwrap();
    assert!(
        callers
            .iter()
            .any(|e| e.path == "lib/main.js" && e.start_line == 4),
        "{callers:#?}"
    );
}
