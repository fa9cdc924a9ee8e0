//! A keyword argument names the called function's parameter (Python's
//! calls bind `name=value` to the parameter `name`), not a binding of the
//! caller that shares the name.

use evident_index::{index_repo, Index, IndexOptions};

#[test]
fn a_keyword_argument_is_the_callee_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "streams.py",
                "def open_stream(path,\n                encoding=None,\n                errors=\"strict\"):\n    return path\n\n\nclass Reader:\n    def __init__(self, source, *, limit=10):\n        self.source = source\n",
            ),
            (
                "app.py",
                "from streams import open_stream, Reader\n\n\ndef main(encoding):\n    stream = open_stream(\"a\", encoding=encoding,\n                         errors=\"ignore\")\n    if encoding == \"utf-8\":\n        pass\n    return Reader(stream, limit=3), dict(encoding=encoding)\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let at = |line: u32, col: u32| {
        index
            .definition_at("app.py", line, Some(col))
            .unwrap()
            .iter()
            .map(|e| format!("{}:{}", e.path, e.start_line))
            .collect::<Vec<_>>()
    };
    // `encoding=` and `errors=` (on the call's next line): the parameters.
    assert_eq!(at(5, 32), ["streams.py:2"]);
    assert_eq!(at(6, 26), ["streams.py:3"]);
    // The value `encoding` and the comparison are the caller's parameter.
    assert_eq!(at(5, 42), ["app.py:4"]);
    assert_eq!(at(7, 8), ["app.py:4"]);
    // A constructor's keyword-only parameter.
    assert_eq!(at(9, 27), ["streams.py:8"]);
    // A keyword of a call outside the repository names nothing in it.
    assert!(at(9, 42).is_empty(), "{:?}", at(9, 42));
}
