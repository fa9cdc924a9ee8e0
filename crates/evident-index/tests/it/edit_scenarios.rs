//! Edit-then-compare scenarios as data. Each starts from a small repository,
//! applies its edits one at a time with an incremental run after each, and
//! compares the index with a rebuild of the same files: the expected result
//! is what a clean build says, never what the incremental path wrote.

use evident_index::{index_repo, IndexOptions};
use evident_testkit::fs::{write_all, write_in};

use crate::common::assert_equals_rebuild;

/// One step of a scenario.
enum Edit {
    /// Write a file (new or changed).
    Write(&'static str, &'static str),
    /// Remove a file.
    Remove(&'static str),
}
use Edit::{Remove, Write};

/// A repository and the edits made to it, in order.
struct Scenario {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    edits: &'static [Edit],
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "python: a module gains a function its importer already calls, then loses one",
        files: &[
            ("lib.py", "def a():\n    pass\n"),
            ("main.py", "from lib import a\n\n\ndef run():\n    a()\n    b()\n"),
        ],
        edits: &[
            Write("lib.py", "def a():\n    pass\n\n\ndef b():\n    pass\n"),
            Write("lib.py", "def b():\n    pass\n"),
        ],
    },
    Scenario {
        name: "python: a base class gains the method a subclass calls, then the base changes",
        files: &[
            ("base.py", "class Base:\n    pass\n"),
            ("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def run(self):\n        self.go()\n"),
        ],
        edits: &[
            Write("base.py", "class Base:\n    def go(self):\n        pass\n"),
            Write("sub.py", "from base import Base\n\n\nclass Sub(object):\n    def run(self):\n        self.go()\n"),
        ],
    },
    Scenario {
        name: "python: a re-export moves to another module of the package",
        files: &[
            ("pkg/__init__.py", "from .a import f\n"),
            ("pkg/a.py", "def f():\n    pass\n"),
            ("main.py", "from pkg import f\n\nf()\n"),
        ],
        edits: &[
            Write("pkg/b.py", "def f():\n    return 1\n"),
            Write("pkg/__init__.py", "from .b import f\n"),
            Remove("pkg/a.py"),
        ],
    },
    Scenario {
        name: "python: the file an import names is removed, then comes back",
        files: &[
            ("util.py", "def helper():\n    pass\n"),
            ("app.py", "import util\n\n\ndef go():\n    util.helper()\n"),
        ],
        edits: &[
            Remove("util.py"),
            Write("util.py", "def helper():\n    pass\n"),
        ],
    },
    Scenario {
        name: "javascript: a default export becomes a named one",
        files: &[
            ("lib.js", "export default function work() {}\n"),
            ("app.js", "import work from './lib.js';\nwork();\n"),
        ],
        edits: &[
            Write("lib.js", "export function work() {}\n"),
            Write("app.js", "import { work } from './lib.js';\nwork();\n"),
        ],
    },
    Scenario {
        name: "rust: a module is declared, then the old one is removed",
        files: &[
            ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            ("src/lib.rs", "mod a;\n\npub fn run() {\n    a::f();\n}\n"),
            ("src/a.rs", "pub fn f() {}\n"),
        ],
        edits: &[
            Write("src/b.rs", "pub fn g() {}\n"),
            Write("src/lib.rs", "mod a;\nmod b;\n\npub fn run() {\n    a::f();\n    b::g();\n}\n"),
            Remove("src/a.rs"),
        ],
    },
    Scenario {
        name: "go: a function moves between files of one package",
        files: &[
            ("p/a.go", "package p\n\nfunc F() {}\n"),
            ("p/b.go", "package p\n\nfunc G() { F() }\n"),
        ],
        edits: &[
            Remove("p/a.go"),
            Write("p/c.go", "package p\n\nfunc F() {}\n"),
        ],
    },
    Scenario {
        name: "c: the definition behind a header's prototype is renamed",
        files: &[
            ("util.h", "int f(void);\n"),
            ("util.c", "#include \"util.h\"\nint f(void) { return 1; }\n"),
            ("main.c", "#include \"util.h\"\nint main(void) { return f(); }\n"),
        ],
        edits: &[
            Write("util.c", "#include \"util.h\"\nint g(void) { return 1; }\n"),
            Write("util.h", "int g(void);\n"),
        ],
    },
];

#[test]
fn every_edit_scenario_equals_a_rebuild() {
    for scenario in SCENARIOS {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_all(root, scenario.files);
        index_repo(root, &IndexOptions::default()).unwrap();
        for (step, edit) in scenario.edits.iter().enumerate() {
            match edit {
                Write(path, text) => write_in(root, path, text),
                Remove(path) => std::fs::remove_file(root.join(path)).unwrap(),
            }
            index_repo(root, &IndexOptions::default()).unwrap();
            assert_equals_rebuild(root, &format!("{}, after edit {}", scenario.name, step + 1));
        }
    }
}
