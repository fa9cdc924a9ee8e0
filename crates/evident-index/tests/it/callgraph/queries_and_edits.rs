//! Queries and edits.

use super::*;

/// An inherited constructor across files stays right incrementally: removing
/// the base's `__init__`, then adding it back, gives the index a rebuild gives.
#[test]
fn inherited_constructors_follow_edits_to_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base_with_init =
        "class Reranker:\n    def __init__(self, model):\n        self.model = model\n";
    evident_testkit::fs::write_all(
        root,
        &[
            ("base.py", base_with_init),
            (
                "guarded.py",
                "from base import Reranker\n\n\nclass GuardedReranker(Reranker):\n    pass\n",
            ),
            (
                "app.py",
                "from guarded import GuardedReranker\n\n\ndef build():\n    return GuardedReranker(\"m\")\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let target = |root: &Path| {
        edges(root)
            .into_iter()
            .find(|e| e.starts_with("app.py:5 GuardedReranker"))
    };
    assert!(target(root).unwrap().contains("-> base.Reranker.__init__"));
    evident_testkit::fs::write_in(root, "base.py", "class Reranker:\n    pass\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(target(root)
        .unwrap()
        .contains("-> guarded.GuardedReranker "));
    common::assert_equals_rebuild(root, "after removing __init__");
    evident_testkit::fs::write_in(root, "base.py", base_with_init);
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(target(root).unwrap().contains("-> base.Reranker.__init__"));
    common::assert_equals_rebuild(root, "after adding __init__ back");
}

/// `def` at an identifier that is not a call, by scope (the languages' rules):
/// a module-level constant or function referenced anywhere in its file, a
/// function referenced (not called) before its hoisted definition in
/// JavaScript; and in Python a class attribute is not visible by bare name
/// inside a method (the class body is not an enclosing scope there).
#[test]
fn def_answers_references_by_scope() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "limits.py",
                "LIMIT = 10\n\n\ndef helper():\n    return LIMIT\n\n\ndef run(items):\n    fn = helper\n    return [fn(i) for i in items[:LIMIT]]\n\n\nclass Box:\n    SIZE = 3\n\n    def grow(self):\n        return SIZE\n",
            ),
            (
                "hoist.js",
                "function main() {\n  const handler = later;\n  return handler();\n}\nfunction later() { return 1; }\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();
    let def = |path: &str, line: u32, col: u32| -> Vec<String> {
        index
            .definition_at(path, line, Some(col))
            .unwrap()
            .iter()
            .map(|e| format!("{}:{}", e.path, e.start_line))
            .collect()
    };
    assert_eq!(def("limits.py", 5, 12), ["limits.py:1"], "LIMIT in helper");
    assert_eq!(
        def("limits.py", 9, 10),
        ["limits.py:4"],
        "helper, referenced"
    );
    assert_eq!(
        def("limits.py", 10, 35),
        ["limits.py:1"],
        "LIMIT in a slice"
    );
    assert!(
        def("limits.py", 17, 16).is_empty(),
        "SIZE in a method is not the class attribute"
    );
    assert_eq!(
        def("limits.py", 4, 5),
        ["limits.py:4"],
        "a definition's own name"
    );
    assert_eq!(def("hoist.js", 2, 20), ["hoist.js:5"], "hoisted function");
}

/// Calls that leave the repository are named, not dropped (Python's rules:
/// `import os.path` binds `os`; `from requests import get as fetch` binds
/// `requests.get`; a method not defined in the class or its bases inside the
/// repository comes from the base outside it; `len` is a builtin unless the
/// repository defines it). A repository definition always wins.
#[test]
fn calls_outside_the_repository_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "checks.py",
                "import os.path\nimport unittest\nfrom requests import get as fetch\n\n\ndef paths(a):\n    return os.path.join(a, \"x\"), len(a), fetch(a), sorted(a)\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n",
            ),
            (
                "base_case.py",
                "import unittest\n\n\nclass MyCase(unittest.TestCase):\n    def check(self):\n        return 1\n",
            ),
            (
                "more.py",
                "from base_case import MyCase\n\n\nclass U(MyCase):\n    def test_b(self):\n        self.assertTrue(self.check())\n",
            ),
            ("sorting.py", "def sorted(items):\n    return items\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let outside = externals(root);
    for expected in [
        "checks.py:7 os.path.join -> os.path.join (external)",
        "checks.py:7 len -> len (builtin)",
        "checks.py:7 fetch -> requests.get (external)",
        "checks.py:12 self.assertEqual -> unittest.TestCase.assertEqual (external)",
        "more.py:6 self.assertTrue -> unittest.TestCase.assertTrue (external)",
    ] {
        assert!(
            outside.contains(&expected.to_string()),
            "missing {expected}\n{}",
            outside.join("\n")
        );
    }
    // Resolved inside the repository, never outside: `self.check()` and the
    // repository's own `sorted` (defined, though not imported into checks.py).
    assert!(
        !outside.iter().any(|e| e.contains("check ->")),
        "{outside:?}"
    );
    assert!(!outside.iter().any(|e| e.contains("sorted")), "{outside:?}");
    assert!(edges(root)
        .iter()
        .any(|e| e.starts_with("more.py:6 self.check -> base_case.MyCase.check")));
    common::assert_equals_rebuild(root, "with external calls");
}

/// A type that flows through three files stays right incrementally: when
/// `a.make` is changed to return another class of `d.py`, a call in `c.py`
/// (which imports only `b.py`, which calls `a.make`) resolves as a rebuild
/// does, although its old edge points into `d.py`, which did not change.
#[test]
fn types_that_flow_follow_edits_two_imports_away() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let a = |returns: &str| {
        format!("from d import Store, Other\n\n\ndef make() -> {returns}:\n    ...\n")
    };
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "d.py",
                "class Store:\n    def open(self):\n        pass\n\n\nclass Other:\n    def open(self):\n        pass\n",
            ),
            ("a.py", a("Store").as_str()),
            ("b.py", "from a import make\n\n\ndef make2():\n    return make()\n"),
            (
                "c.py",
                "from b import make2\n\n\ndef run():\n    s = make2()\n    s.open()\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let target = |root: &Path| {
        edges(root)
            .into_iter()
            .find(|e| e.starts_with("c.py:6 s.open"))
    };
    assert!(
        target(root).unwrap().contains("-> d.Store.open"),
        "{:?}",
        target(root)
    );
    evident_testkit::fs::write_in(root, "a.py", &a("Other"));
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        target(root).unwrap().contains("-> d.Other.open"),
        "{:?}",
        target(root)
    );
    common::assert_equals_rebuild(root, "after changing what make returns");
    // An edit that changes no binding (a comment) sends nothing down the
    // importers, not even the call that names `make`: what `a.py` offers
    // them is the same.
    evident_testkit::fs::write_in(root, "a.py", &format!("# a comment\n{}", a("Other")));
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_eq!(summary.resolved_calls, 0, "{summary:?}");
    common::assert_equals_rebuild(root, "after a comment");
}

/// A subclass that gains its base in another file: `self.handle()` in the
/// base now reaches the subclass's `handle`, incrementally as in a rebuild.
#[test]
fn template_methods_follow_a_subclass_that_gains_its_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base = "class Command:\n    def execute(self):\n        self.handle()\n";
    let sub = |bases: &str| {
        format!("from base import Command\n\n\nclass Migrate{bases}:\n    def handle(self):\n        pass\n")
    };
    // Another `handle` keeps a guess by name away: the call has no edge at first.
    let other = "class Other:\n    def handle(self):\n        pass\n";
    evident_testkit::fs::write_all(
        root,
        &[
            ("base.py", base),
            ("other.py", other),
            ("migrate.py", sub("").as_str()),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let target = |root: &Path| {
        edges(root)
            .into_iter()
            .find(|e| e.starts_with("base.py:3 self.handle"))
    };
    assert_eq!(target(root), None);
    evident_testkit::fs::write_in(root, "migrate.py", &sub("(Command)"));
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        target(root).is_some_and(|e| e.contains("-> migrate.Migrate.handle (inferred)")),
        "{:?}",
        edges(root)
    );
    common::assert_equals_rebuild(root, "after Migrate gains its base");
}

/// A Cargo workspace: qualified names start with each crate's name (from its
/// Cargo.toml), so two crates' `crate::util::helper` differ, and a path or a
/// `use` through another crate of the workspace resolves exactly.
#[test]
fn workspace_crates_name_their_own_definitions_and_reach_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            ("crates/store-core/Cargo.toml", "[package]\nname = \"store-core\"\nversion = \"0.1.0\"\n"),
            ("crates/store-core/src/lib.rs", "pub mod util;\n"),
            ("crates/store-core/src/util.rs", "pub fn helper() {}\n"),
            ("crates/app/Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n"),
            ("crates/app/src/lib.rs", "pub mod util;\nuse store_core::util::helper;\n\npub fn run() {\n    helper();\n    store_core::util::helper();\n    crate::util::helper();\n}\n"),
            ("crates/app/src/util.rs", "pub fn helper() {}\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "crates/app/src/lib.rs:5 helper -> store_core::util::helper (exact)",
        "crates/app/src/lib.rs:6 store_core::util::helper -> store_core::util::helper (exact)",
        "crates/app/src/lib.rs:7 crate::util::helper -> app::util::helper (exact)",
    ] {
        assert!(
            all.iter().any(|e| e == expected),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    // Renaming a crate renames its definitions, incrementally as in a rebuild.
    evident_testkit::fs::write_in(
        root,
        "crates/store-core/Cargo.toml",
        "[package]\nname = \"store-base\"\nversion = \"0.1.0\"\n",
    );
    evident_testkit::fs::write_in(
        root,
        "crates/app/src/lib.rs",
        "pub mod util;\nuse store_base::util::helper;\n\npub fn run() {\n    helper();\n}\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        edges(root)
            .iter()
            .any(|e| e.contains("-> store_base::util::helper")),
        "{:?}",
        edges(root)
    );
    common::assert_equals_rebuild(root, "after renaming a crate");
}

/// A mixin's `self.assertEqual()` leaves the repository through the classes
/// that use it, and follows a subclass that gains its outside base,
/// incrementally as in a rebuild.
#[test]
fn a_mixin_reaches_outside_through_its_subclasses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mixin = "class Checks:\n    def check(self):\n        self.assertEqual(1, 1)\n";
    let test = |bases: &str| {
        format!("import unittest\nfrom mixin import Checks\n\n\nclass T({bases}):\n    pass\n")
    };
    evident_testkit::fs::write_all(
        root,
        &[("mixin.py", mixin), ("t.py", test("Checks").as_str())],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let target = |root: &Path| {
        externals(root)
            .into_iter()
            .find(|e| e.starts_with("mixin.py:3 self.assertEqual"))
    };
    assert_eq!(target(root), None);
    evident_testkit::fs::write_in(root, "t.py", &test("Checks, unittest.TestCase"));
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        target(root).is_some_and(|e| e.contains("unittest.TestCase.assertEqual")),
        "{:?}",
        externals(root)
    );
    common::assert_equals_rebuild(root, "after the subclass gains its outside base");
}

/// Bare specifiers reach the repository's own files the way its tools see
/// them (`tsconfig.json` `paths`, a workspace package's name), and a change
/// to those files or to `go.mod` re-resolves, incrementally as in a rebuild.
#[test]
fn project_files_decide_where_bare_imports_go() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            ("package.json", "{\"private\": true, \"workspaces\": [\"packages/*\"]}\n"),
            ("packages/ui/package.json", "{\"name\": \"@acme/ui\", \"types\": \"./src/index.ts\"}\n"),
            ("packages/ui/src/index.ts", "export function button() {}\n"),
            ("app/tsconfig.json", "{\n  // aliases\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@/*\": [\"src/*\"]},},\n}\n"),
            ("app/src/util.ts", "export function helper() {}\n"),
            ("app/src/main.ts", "import { button } from '@acme/ui';\nimport { helper } from '@/util';\n\nexport function run() {\n  button();\n  helper();\n}\n"),
            ("go.mod", "module example.com/shop\n\ngo 1.22\n"),
            ("cart/cart.go", "package cart\n\nfunc Total() int { return 0 }\n"),
            ("main.go", "package main\n\nimport \"example.com/shop/cart\"\n\nfunc main() {\n\tcart.Total()\n}\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "app/src/main.ts:5 button -> packages/ui/src/index.button (exact)",
        "app/src/main.ts:6 helper -> app/src/util.helper (exact)",
        "main.go:6 cart.Total -> cart.Total (exact)",
    ] {
        assert!(
            all.iter().any(|e| e == expected),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    // A renamed package, a removed alias and a renamed Go module: the
    // imports now name something outside the repository.
    evident_testkit::fs::write_in(
        root,
        "packages/ui/package.json",
        "{\"name\": \"@acme/widgets\"}\n",
    );
    evident_testkit::fs::write_in(root, "app/tsconfig.json", "{}\n");
    evident_testkit::fs::write_in(root, "go.mod", "module example.com/store\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(
        !all.iter()
            .any(|e| e.starts_with("app/src/main.ts") || e.starts_with("main.go")),
        "{}",
        all.join("\n")
    );
    let outside = externals(root);
    assert!(
        outside.iter().any(|e| e.contains("@acme/ui")),
        "{outside:?}"
    );
    common::assert_equals_rebuild(root, "after the project's layout changed");
}

/// Values that come from outside the repository keep their origin through
/// bindings, calls and attributes (Python's and JavaScript's semantics: a
/// literal is an instance of the builtin type; calling an imported name gives
/// what the outside module returns), and nothing is guessed by name for them.
/// A data attribute a repository class lacks is unknown, not its outside
/// base's: such attributes are often set from elsewhere.
#[test]
fn values_from_outside_are_followed_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "report.py",
                "from io import StringIO\nimport requests\nfrom django.db import models\n\n\nclass Book(models.Model):\n    pass\n\n\ndef render(rows, title: StringIO):\n    out = StringIO()\n    out.getvalue()\n    errors = []\n    errors.append(1)\n    \", \".join(rows)\n    requests.get(\"u\").json()\n    Book().save()\n    title.seek(0)\n    Book.objects.create()\n    return out\n\n\ndef use():\n    render([], None).getvalue()\n",
            ),
            // Same-named methods a name-only guess would have picked.
            ("mine.py", "class Mine:\n    def getvalue(self):\n        pass\n\n    def append(self, x):\n        pass\n\n    def json(self):\n        pass\n\n    def seek(self, n):\n        pass\n"),
            ("web.js", "function build(items) {\n  const parts = [];\n  parts.push(items);\n  return 'a,b'.split(',');\n}\n"),
            ("lib.js", "export function push() {}\nexport function split() {}\n"),
            // Parameters named like builtins are the parameters.
            ("shadow.py", "def f(format, list):\n    format.upper()\n    list.append(1)\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let outside = externals(root);
    for expected in [
        "report.py:12 out.getvalue -> io.StringIO().getvalue (external)",
        "report.py:14 errors.append -> list.append (builtin)",
        "report.py:15 \", \".join -> str.join (builtin)",
        "report.py:16 requests.get(\"u\").json -> requests.get().json (external)",
        "report.py:17 Book().save -> django.db.models.Model.save (external)",
        "report.py:18 title.seek -> io.StringIO.seek (external)",
        "report.py:24 render([], None).getvalue -> io.StringIO().getvalue (external)",
        "web.js:3 parts.push -> Array.push (builtin)",
        "web.js:4 'a,b'.split -> String.split (builtin)",
    ] {
        assert!(
            outside.contains(&expected.to_string()),
            "missing {expected}\n{}",
            outside.join("\n")
        );
    }
    // `Book.objects`: a data attribute the class lacks is not its base's.
    assert!(
        !outside.iter().any(|e| e.contains("objects")),
        "{outside:?}"
    );
    assert!(
        !outside.iter().any(|e| e.starts_with("shadow.py")),
        "{outside:?}"
    );
    let all = edges(root);
    assert!(
        !all.iter().any(|e| e.starts_with("report.py")
            && !e.contains("render -> report.render")
            && !e.contains("Book -> report.Book")
            || e.starts_with("web.js")),
        "{}",
        all.join("\n")
    );
}

/// A function stored in a container and called through a subscript or a
/// loop reaches what the container holds (Python's and JavaScript's
/// semantics), and follows an edit of the container in another file,
/// incrementally as in a rebuild.
#[test]
fn functions_in_containers_are_called_through_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ops = |entries: &str| {
        format!("def add():\n    pass\n\n\ndef sub():\n    pass\n\n\nOPS = {{{entries}}}\n")
    };
    evident_testkit::fs::write_all(
        root,
        &[
            ("ops.py", ops("\"add\": add").as_str()),
            ("main.py", "from ops import OPS, add, sub\n\n\ndef run(name):\n    OPS[name]()\n    for step in (add, sub):\n        step()\n    steps = [sub]\n    for step in steps:\n        step()\n"),
            ("web.js", "function a() {}\nfunction b() {}\nconst table = {a, other: b};\nexport function go(k) {\n  table[k]();\n  for (const f of [a]) {\n    f();\n  }\n}\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "main.py:5 OPS[name] -> ops.add (inferred)",
        // Flow-insensitive: both loops bind `step`, so both calls reach both.
        "main.py:7 step -> ops.add (inferred)",
        "main.py:10 step -> ops.sub (inferred)",
        "web.js:5 table[k] -> web.a (inferred)",
        "web.js:5 table[k] -> web.b (inferred)",
    ] {
        assert!(
            all.iter().any(|e| e == expected),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    assert!(
        !all.iter()
            .any(|e| e.starts_with("main.py:5") && e.contains("ops.sub")),
        "{all:?}"
    );
    evident_testkit::fs::write_in(root, "ops.py", &ops("\"sub\": sub"));
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(
        all.iter()
            .any(|e| e == "main.py:5 OPS[name] -> ops.sub (inferred)"),
        "{}",
        all.join("\n")
    );
    assert!(
        !all.iter()
            .any(|e| e == "main.py:5 OPS[name] -> ops.add (inferred)"),
        "{}",
        all.join("\n")
    );
    common::assert_equals_rebuild(root, "after editing a container");
}
