//! Call resolution, one rule per expected edge, for every indexed language;
//! and the graph queries built on it.

use std::path::{Path, PathBuf};

use evident_index::{index_repo, Index, IndexOptions, Kind, Page};
use rusqlite::Connection;

use crate::common;

fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    evident_testkit::fs::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/callgraph"),
        &root,
    );
    index_repo(&root, &IndexOptions::default()).unwrap();
    (dir, root)
}

/// `path:line callee -> target (confidence)` for every resolved call.
fn edges(root: &Path) -> Vec<String> {
    call_rows(
        root,
        "SELECT f.path, c.line, c.callee, t.qualified_name, g.confidence
         FROM edges g JOIN calls c ON c.id = g.call_id JOIN files f ON f.id = c.file_id
         JOIN symbols t ON t.id = g.callee_id ORDER BY f.path, c.line, c.callee",
    )
}

/// `path:line callee -> target (kind)` for every call resolved outside the repository.
fn externals(root: &Path) -> Vec<String> {
    call_rows(
        root,
        "SELECT f.path, c.line, c.callee, x.target, x.kind FROM externals x
         JOIN calls c ON c.id = x.call_id JOIN files f ON f.id = c.file_id
         ORDER BY f.path, c.line, c.callee",
    )
}

/// The rows of `sql` (path, line, callee, target, label), read with SQLite itself.
fn call_rows(root: &Path, sql: &str) -> Vec<String> {
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| {
        Ok(format!(
            "{}:{} {} -> {} ({})",
            r.get::<_, String>(0)?,
            r.get::<_, u32>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn assert_edges(all: &[String], expected: &[&str]) {
    let missing: Vec<&&str> = expected
        .iter()
        .filter(|e| !all.iter().any(|a| a == **e))
        .collect();
    assert!(
        missing.is_empty(),
        "missing edges:\n{missing:#?}\nall edges:\n{all:#?}"
    );
}

#[test]
fn python_rules() {
    let (_tmp, root) = fixture();
    let all = edges(&root);
    assert_edges(
        &all,
        &[
            // nested function, and a sibling function in the same module
            "py/shop/pricing.py:11 with_tax -> py.shop.pricing.total.with_tax (exact)",
            "py/shop/pricing.py:11 subtotal -> py.shop.pricing.subtotal (exact)",
            // relative import with an alias
            "py/shop/models/order.py:11 sub -> py.shop.pricing.subtotal (exact)",
            // `import pkg.mod as m; m.f()`
            "py/shop/models/order.py:11 pricing.total -> py.shop.pricing.total (exact)",
            // self.method in the same class, and through a base class
            "py/shop/models/order.py:15 self.price -> py.shop.models.order.Order.price (exact)",
            "py/shop/models/order.py:14 self.save -> py.shop.models.base.Model.save (inferred)",
            "py/shop/models/base.py:3 self.validate -> py.shop.models.base.Model.validate (exact)",
            // constructor → __init__, through cls too, and Class.method
            "py/shop/models/order.py:23 Order -> py.shop.models.order.Order.__init__ (exact)",
            "py/shop/models/order.py:19 cls -> py.shop.models.order.Order.__init__ (exact)",
            "py/shop/models/order.py:25 Order.empty -> py.shop.models.order.Order.empty (exact)",
            // a re-export through __init__.py with an alias, from module-level code
            "py/main.py:4 grand_total -> py.shop.pricing.total (exact)",
            "py/main.py:5 make_order -> py.shop.models.order.make_order (exact)",
            // `order = Order(...)`, then `order.checkout()`
            "py/shop/models/order.py:24 order.checkout -> py.shop.models.order.Order.checkout (inferred)",
        ],
    );
}

#[test]
fn rust_rules() {
    let (_tmp, root) = fixture();
    let all = edges(&root);
    assert_edges(
        &all,
        &[
            // `use a::B as C; C::new()`
            "rs/src/lib.rs:8 Database::new -> crate::store::Db::new (exact)",
            // `mod util;` then `util::f()`, and `crate::util::f()`
            "rs/src/lib.rs:9 util::log -> crate::util::log (exact)",
            "rs/src/lib.rs:10 crate::util::log -> crate::util::log (exact)",
            "rs/src/util.rs:2 helper -> crate::util::helper (exact)",
            // `Self::f`, `self.f()` in an impl, a trait impl method, `super::`
            "rs/src/store/mod.rs:16 Self::validate -> crate::store::Db::validate (exact)",
            // `let db = Db { .. }; db.check()`, `let db = Database::new(); db.check()`
            "rs/src/store/mod.rs:15 db.check -> crate::store::Db::check (inferred)",
            "rs/src/lib.rs:11 db.check -> crate::store::Db::check (inferred)",
            "rs/src/store/mod.rs:21 self.size -> crate::store::Db::size (exact)",
            "rs/src/store/mod.rs:25 super::util::log -> crate::util::log (exact)",
            // a `pub use` re-export through mod.rs
            "rs/src/lib.rs:12 compact -> crate::store::inner::compact (exact)",
        ],
    );
}

#[test]
fn javascript_and_typescript_rules() {
    let (_tmp, root) = fixture();
    let all = edges(&root);
    assert_edges(
        &all,
        &[
            // `new Alias()` through a re-export in index.ts → the constructor
            "web/app.ts:5 Basket -> web/lib/cart.Cart.constructor (exact)",
            // namespace import
            "web/app.ts:7 fmt.describe -> web/format.describe (exact)",
            // this.method
            "web/lib/cart.ts:10 this.recount -> web/lib/cart.Cart.recount (exact)",
            // `const basket = new Basket(); basket.add()`
            "web/app.ts:6 basket.add -> web/lib/cart.Cart.add (inferred)",
            // TSX and JavaScript callers: named import, aliased ES import
            "web/view.tsx:4 describe -> web/format.describe (exact)",
            "web/legacy.js:5 show -> web/format.describe (exact)",
        ],
    );
}

#[test]
fn go_rules() {
    let (_tmp, root) = fixture();
    let all = edges(&root);
    assert_edges(
        &all,
        &[
            // package-qualified call through an aliased import, resolved via go.mod
            "goapp/main.go:8 store.Open -> db.Open (exact)",
            "goapp/main.go:10 run -> main.run (exact)",
            // a method of the receiver `(c *Conn)`: its declared type
            "goapp/internal/db/db.go:10 c.flush -> db.Conn.flush (inferred)",
        ],
    );
}

#[test]
fn java_rules() {
    let (_tmp, root) = fixture();
    let all = edges(&root);
    assert_edges(
        &all,
        &[
            // imported class, static method
            "java/com/acme/App.java:7 Strings.upper -> com.acme.util.Strings.upper (exact)",
            // implicit this
            "java/com/acme/App.java:8 helper -> com.acme.App.helper (exact)",
            "java/com/acme/Worker.java:5 init -> com.acme.Worker.init (exact)",
            // `new Worker()` → the constructor: a class of the same package
            // is in scope without an import
            "java/com/acme/App.java:9 Worker -> com.acme.Worker.Worker (exact)",
            // `Worker w = new Worker(); w.run()`
            "java/com/acme/App.java:10 w.run -> com.acme.Worker.run (inferred)",
        ],
    );
}

#[test]
fn unresolved_calls_are_kept() {
    let (_tmp, root) = fixture();
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let kept: i64 = conn
        .query_row("SELECT count(*) FROM calls WHERE callee = 'sum'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(kept, 1, "a builtin call stays in calls without an edge");
    let edges: i64 = conn
        .query_row(
            "SELECT count(*) FROM edges g JOIN calls c ON c.id = g.call_id WHERE c.callee = 'sum'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(edges, 0);
}

#[test]
fn callers_callees_impact_and_graph() {
    let (_tmp, root) = fixture();
    let index = Index::open(&root).unwrap();

    let callers = index.callers("py.shop.pricing.subtotal", None, 1).unwrap();
    let sites: Vec<(String, u32)> = callers
        .iter()
        .map(|e| (e.path.clone(), e.start_line))
        .collect();
    assert_eq!(
        sites,
        vec![
            ("py/shop/models/order.py".into(), 11),
            ("py/shop/pricing.py".into(), 11)
        ]
    );
    assert!(callers
        .iter()
        .all(|e| e.depth == Some(1) && e.confidence.as_deref() == Some("exact")));

    let callees = index.callees("Order.checkout", None).unwrap();
    let names: Vec<&str> = callees.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, vec!["self.save", "self.price"]);

    // subtotal ← total ← main.py (module) and ← Order.price ← Order.checkout
    let impact = index
        .impact("py.shop.pricing.subtotal", None, 3, 100)
        .unwrap();
    let nodes: Vec<(String, u32)> = impact
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.depth.unwrap()))
        .collect();
    assert!(
        nodes.contains(&("py.shop.models.order.Order.price".into(), 1)),
        "{nodes:?}"
    );
    assert!(
        nodes.contains(&("py.shop.pricing.total".into(), 1)),
        "{nodes:?}"
    );
    assert!(
        nodes.contains(&("py.shop.models.order.Order.checkout".into(), 2)),
        "{nodes:?}"
    );
    assert!(
        nodes.contains(&("py.main".into(), 2)),
        "module-level code is the module node: {nodes:?}"
    );
    let checkout = impact
        .nodes
        .iter()
        .find(|n| n.name.ends_with("checkout"))
        .unwrap();
    assert_eq!(
        checkout.via.as_deref().unwrap(),
        [
            "py.shop.models.order.Order.checkout",
            "py.shop.models.order.Order.price",
            "py.shop.pricing.subtotal"
        ]
    );
    let shallow = index
        .impact("py.shop.pricing.subtotal", None, 1, 100)
        .unwrap();
    assert!(shallow.nodes.iter().all(|n| n.depth == Some(1)));
    let capped = index
        .impact("py.shop.pricing.subtotal", None, 3, 1)
        .unwrap();
    assert_eq!(
        (capped.nodes.len(), capped.omitted),
        (1, impact.nodes.len() - 1)
    );

    let graph = index.call_graph(Some("py")).unwrap();
    assert!(graph
        .edges
        .iter()
        .any(|e| e.caller == "py.main" && e.callee == "py.shop.pricing.total"));
    assert!(graph.edges.iter().all(|e| e.path.starts_with("py/")));
    assert!(graph
        .nodes
        .iter()
        .any(|n| n.qualified_name == "py.shop.pricing.total" && n.kind == "function"));

    let def = index.definition_at("py/main.py", 4, Some(7)).unwrap();
    assert_eq!(
        def[0].qualified_name.as_deref(),
        Some("py.shop.pricing.total")
    );
    let def = index
        .definition_at("py/shop/models/order.py", 15, Some(21))
        .unwrap();
    assert_eq!(
        def[0].qualified_name.as_deref(),
        Some("py.shop.models.order.Order.price")
    );
}

#[test]
fn unknown_and_ambiguous_symbols_are_explained() {
    let (_tmp, root) = fixture();
    let index = Index::open(&root).unwrap();
    let err = index.callers("subtotl", None, 1).unwrap_err().to_string();
    assert!(
        err.contains("no definition named") && err.contains("did you mean subtotal"),
        "{err}"
    );
    let err = index.callers("size", None, 1).unwrap_err().to_string();
    assert!(
        err.contains("ambiguous") && err.contains("crate::store::Db::size"),
        "{err}"
    );
    assert!(index
        .callers("size", Some("rs/src/store"), 1)
        .is_err_and(|e| e.to_string().contains("ambiguous")));
    assert!(index.callers("crate::store::Db::size", None, 1).is_ok());
    // A path filter that leaves out the definition says where it is.
    let err = index
        .callers("subtotal", Some("py/shop/models"), 1)
        .unwrap_err();
    assert!(matches!(err, evident_index::Error::NotFound(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "no definition named \"subtotal\" under py/shop/models; it is defined in py/shop/pricing.py:4: change or drop the path"
    );
    assert!(index
        .callers("subtotal", None, 9)
        .unwrap_err()
        .to_string()
        .contains("outside 1..=5"));
}

#[test]
fn recursion_and_huge_fan_in_stay_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("def ping(n):\n    return pong(n - 1)\n\n\ndef pong(n):\n    return ping(n) if n else ping(0)\n\n\ndef hub():\n    return 1\n\n\n");
    // Locals bound to each other's constructors must not send resolution in circles.
    body += "def tangled():\n    a = b.X()\n    b = a.Y()\n    return a.z()\n\n\n";
    for i in 0..5000 {
        body += &format!("def caller_{i}():\n    return hub()\n\n\n");
    }
    std::fs::write(dir.path().join("m.py"), body).unwrap();
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    let index = Index::open(dir.path()).unwrap();
    let impact = index.impact("ping", None, 6, 200).unwrap();
    let names: Vec<&str> = impact.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, vec!["m.pong"], "a cycle ends where it started");
    let pong = index.callers("pong", None, 5).unwrap();
    assert!(
        pong.len() >= 2,
        "ping → pong → ping …, each site listed, no endless loop"
    );
    let hub = index.impact("hub", None, 6, 200).unwrap();
    assert_eq!((hub.nodes.len(), hub.omitted), (200, 4800));

    // Pages of callers: every site counted, only the page's listed, in the
    // order of the whole list, and pages meet without gap or overlap.
    let all = index.callers_page("hub", None, 1, Page::ALL).unwrap();
    assert_eq!((all.sites.len(), all.total), (5000, 5000));
    let line = |e: &evident_index::Evidence| e.start_line;
    let page = |offset, limit| {
        index
            .callers_page("hub", None, 1, Page { offset, limit })
            .unwrap()
    };
    let first = page(0, 100);
    assert_eq!((first.sites.len(), first.total), (100, 5000));
    let second = page(100, 100);
    let joined: Vec<u32> = first.sites.iter().chain(&second.sites).map(line).collect();
    let expected: Vec<u32> = all.sites[..200].iter().map(line).collect();
    assert_eq!(joined, expected);
    let last = page(4990, 100);
    assert_eq!((last.sites.len(), last.total), (10, 5000));
    assert!(page(6000, 100).sites.is_empty());
}

/// Edges into a changed file from unchanged files must follow it: the
/// incremental index equals a rebuild, edges included, after each round of edits.
#[test]
fn incremental_edges_equal_a_rebuild() {
    let (_tmp, root) = fixture();
    let write = |rel: &str, text: &str| std::fs::write(root.join(rel), text).unwrap();
    let rounds: Vec<Box<dyn Fn()>> = vec![
        // lines shift in a file others call into; a definition is renamed away
        Box::new(|| {
            write("py/shop/pricing.py", "\n\nTAX = 0.2\n\n\ndef subtotal2(items):\n    return sum(items)\n\n\ndef total(items):\n    return subtotal2(items)\n")
        }),
        // and back, so `sub` and `subtotal` resolve again
        Box::new(|| {
            write("py/shop/pricing.py", "def subtotal(items):\n    return sum(items)\n\n\ndef total(items):\n    return subtotal(items)\n")
        }),
        // a base class disappears: `self.save` loses its inferred edge
        Box::new(|| std::fs::remove_file(root.join("py/shop/models/base.py")).unwrap()),
        // a new, unique method name makes a name-only guess possible
        Box::new(|| {
            write(
                "goapp/internal/db/extra.go",
                "package db\n\nfunc (c *Conn) Reset() {}\n",
            )
        }),
        // a re-export changes its source
        Box::new(|| {
            write(
                "web/lib/index.ts",
                "export { Cart } from \"./cart\";\nexport function helper() {}\n",
            )
        }),
        // an import that resolves to the root's `util.py`, which lacks `f` ...
        Box::new(|| {
            write("util.py", "def other():\n    return 0\n");
            write(
                "py/util.py",
                "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
            );
            write(
                "py/util_user.py",
                "import util\n\n\ndef use():\n    return util.f() + util.g()\n",
            );
        }),
        // ... until it is deleted and the import falls back to the sibling `py/util.py`
        Box::new(|| std::fs::remove_file(root.join("util.py")).unwrap()),
        // a Rust module file is renamed away and a caller's import breaks
        Box::new(|| {
            std::fs::rename(root.join("rs/src/util.rs"), root.join("rs/src/utils.rs")).unwrap()
        }),
    ];
    for (i, edit) in rounds.iter().enumerate() {
        std::thread::sleep(std::time::Duration::from_millis(15));
        edit();
        index_repo(&root, &IndexOptions::default()).unwrap();
        common::assert_equals_rebuild(&root, &format!("round {i}"));
    }
}

/// flask's `current_app.url_for(...)` inside `helpers.url_for`, in small: the
/// receiver is a module-level proxy whose type no static rule can know, and two
/// classes define `url_for`. By Python's semantics the call may reach either
/// method and cannot reach the enclosing function `helpers.url_for` (it is
/// called on an object), so: no resolved caller from helpers.py, one possible
/// call site, and `def` lists both methods as name-only candidates, never the
/// enclosing function.
#[test]
fn unresolved_calls_are_possible_callers_and_never_the_enclosing_namesake() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "app.py",
                "class Flask:\n    def url_for(self, endpoint):\n        return \"/\" + endpoint\n\n    def run(self):\n        return self.url_for(\"index\")\n\n\nclass Blueprint:\n    def url_for(self, endpoint):\n        return \"/bp/\" + endpoint\n",
            ),
            ("proxies.py", "current_app = None\n"),
            (
                "helpers.py",
                "from proxies import current_app\n\n\ndef url_for(endpoint):\n    return current_app.url_for(endpoint)\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let index = Index::open(root).unwrap();

    let callers = index
        .callers_page("app.Flask.url_for", None, 1, Page::ALL)
        .unwrap();
    let possible = callers.possible;
    let resolved: Vec<String> = callers
        .sites
        .iter()
        .map(|e| format!("{}:{}", e.path, e.start_line))
        .collect();
    assert_eq!(resolved, ["app.py:6"], "self.url_for in Flask.run");
    assert_eq!(possible.total, 1);
    let site = &possible.sites[0];
    assert_eq!((site.path.as_str(), site.start_line), ("helpers.py", 5));
    assert_eq!(site.name, "helpers.url_for", "the caller is named");
    assert_eq!(site.confidence.as_deref(), Some("possible"));
    // `callers` lists both groups; `impact` counts the possible one apart.
    assert_eq!(
        index.callers("app.Flask.url_for", None, 1).unwrap().len(),
        2
    );
    let impact = index.impact("app.Flask.url_for", None, 3, 50).unwrap();
    assert_eq!(impact.possible.total, 1);

    // `def` on the unresolved call: candidates by name, labelled; never the enclosing function.
    let def = index.definition_at("helpers.py", 5, Some(24)).unwrap();
    let mut names: Vec<&str> = def
        .iter()
        .map(|e| e.qualified_name.as_deref().unwrap_or(""))
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["app.Blueprint.url_for", "app.Flask.url_for"]);
    assert!(def
        .iter()
        .all(|e| e.confidence.as_deref() == Some("name_only")));
    // On the resolved call, the answer is the method, not a candidate.
    let def = index.definition_at("app.py", 6, Some(21)).unwrap();
    assert_eq!(def.len(), 1);
    assert_eq!(def[0].qualified_name.as_deref(), Some("app.Flask.url_for"));
    assert_ne!(def[0].confidence.as_deref(), Some("name_only"));
}

/// Inherited constructors and `super()`, from the languages' semantics: a
/// Python class without `__init__` runs its base's, and `super().m()` calls
/// the base's `m`; a JavaScript class without `constructor` runs its base's;
/// Java's implicit constructor is the class's own, so `new` stays on the class.
#[test]
fn inherited_constructors_and_super_calls() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "rerank.py",
                "class Reranker:\n    def __init__(self, model):\n        self.model = model\n\n    def rerank(self, items):\n        return sorted(items)\n\n\nclass GuardedReranker(Reranker):\n    def rerank(self, items):\n        return super().rerank(items)[:10]\n\n\nclass Strict(GuardedReranker):\n    pass\n\n\ndef build():\n    return GuardedReranker(\"m\"), Strict(\"s\")\n",
            ),
            (
                "shapes.js",
                "class Base {\n  constructor(x) { this.x = x; }\n  greet() { return 1; }\n}\nclass Child extends Base {\n  greet() { return super.greet() + 1; }\n}\nfunction make() { return new Child(1); }\n",
            ),
            (
                "Shapes.java",
                "class Shape {\n  Shape() {}\n}\nclass Square extends Shape {\n  static Square make() { return new Square(); }\n}\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "rerank.py:11 super().rerank -> rerank.Reranker.rerank",
        "rerank.py:19 GuardedReranker -> rerank.Reranker.__init__",
        "rerank.py:19 Strict -> rerank.Reranker.__init__",
        "shapes.js:6 super.greet -> shapes.Base.greet",
        "shapes.js:8 Child -> shapes.Base.constructor",
        "Shapes.java:5 Square -> Shapes.Square",
    ] {
        assert!(
            all.iter().any(|e| e.starts_with(expected)),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
}

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
    // importers: only `a.py`'s own call and the one that names `make` again.
    evident_testkit::fs::write_in(root, "a.py", &format!("# a comment\n{}", a("Other")));
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_eq!(summary.resolved_calls, 1, "{summary:?}");
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

/// A parameter holds what the calls of its function in the same file pass
/// (Python's and JavaScript's semantics: positional, keyword and the
/// receiver as `self`), and follows edits of the arguments and of what they
/// name in another file, incrementally as in a rebuild.
#[test]
fn parameters_hold_what_the_calls_in_their_file_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let main = |argument: &str| {
        format!(
            "from lib import work, rest\n\n\nclass Engine:\n    def start(self):\n        pass\n\n\nclass Runner:\n    def run(self, job, *, then=None):\n        job()\n        then()\n\n\ndef drive(engine):\n    engine.start()\n\n\ndef g():\n    Runner().run({argument}, then=rest)\n    drive(Engine())\n"
        )
    };
    evident_testkit::fs::write_all(
        root,
        &[
            ("lib.py", "def work():\n    pass\n\n\ndef rest():\n    pass\n"),
            ("main.py", main("work").as_str()),
            ("web.js", "function task() {}\nfunction each(cb) {\n  cb();\n}\nexport function go() {\n  each(task);\n}\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "main.py:11 job -> lib.work (inferred)",
        "main.py:12 then -> lib.rest (inferred)",
        "main.py:16 engine.start -> main.Engine.start (inferred)",
        "web.js:3 cb -> web.task (inferred)",
    ] {
        assert!(
            all.iter().any(|e| e == expected),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    // Another argument; then what it names moves out of the other file.
    evident_testkit::fs::write_in(root, "main.py", &main("rest"));
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(
        all.iter()
            .any(|e| e == "main.py:11 job -> lib.rest (inferred)"),
        "{}",
        all.join("\n")
    );
    assert!(
        !all.iter().any(|e| e.contains("lib.work")),
        "{}",
        all.join("\n")
    );
    common::assert_equals_rebuild(root, "after changing an argument");
    evident_testkit::fs::write_in(root, "lib.py", "def work():\n    pass\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert!(
        !all.iter().any(|e| e.contains("lib.rest")),
        "{}",
        all.join("\n")
    );
    common::assert_equals_rebuild(root, "after removing what an argument names");
}

/// What an alias or an argument names in another file, and the calls that
/// bind a parameter, are followed after edits elsewhere, incrementally as in
/// a rebuild: `x = lib.work` and `call_with(lib.work)` once `lib` gains `work`;
/// a parameter bound through a call whose target a new definition elsewhere
/// makes ambiguous.
#[test]
fn aliases_and_arguments_follow_edits_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    evident_testkit::fs::write_all(
        root,
        &[
            ("lib.py", "def rest():\n    pass\n"),
            ("main.py", "import lib\n\n\ndef call_with(fn):\n    fn()\n\n\ndef g():\n    x = lib.work\n    x()\n    call_with(lib.work)\n"),
            ("box.py", "class Box:\n    def apply(self, fn):\n        fn()\n\n\ndef work():\n    pass\n\n\ndef h(x):\n    x.apply(work)\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        edges(root).contains(&"box.py:3 fn -> box.work (inferred)".to_string()),
        "{:?}",
        edges(root)
    );
    evident_testkit::fs::write_in(
        root,
        "lib.py",
        "def rest():\n    pass\n\n\ndef work():\n    pass\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    for expected in [
        "main.py:10 x -> lib.work (inferred)",
        "main.py:5 fn -> lib.work (inferred)",
    ] {
        assert!(
            all.iter().any(|e| e == expected),
            "missing {expected}\n{}",
            all.join("\n")
        );
    }
    common::assert_equals_rebuild(root, "after gaining a name");
    // `x.apply` was `Box.apply` by its unique name; a second `apply` makes
    // it unknown, and `fn` in `Box.apply` no longer holds `work`.
    evident_testkit::fs::write_in(
        root,
        "other.py",
        "class Other:\n    def apply(self, fn):\n        pass\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        !edges(root).iter().any(|e| e.starts_with("box.py:3")),
        "{:?}",
        edges(root)
    );
    common::assert_equals_rebuild(root, "after a call that binds a parameter changed target");
}

/// An edit that changes nothing other files resolve through (a comment,
/// a body) moves the edges into the file onto its new rows instead of
/// resolving their calls again; any other edit resolves them again. Either
/// way the index equals a rebuild, also with two definitions of one name.
#[test]
fn edges_into_an_edited_file_move_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store = |head: &str, body: &str| {
        format!("{head}class Store:\n    def open(self):\n        {body}\n\n\nif True:\n    def pick():\n        pass\nelse:\n    def pick():\n        pass\n")
    };
    evident_testkit::fs::write_all(
        root,
        &[
            ("store.py", store("", "pass").as_str()),
            (
                "app.py",
                "import store\nfrom store import Store\n\n\ndef run(s: Store):\n    s.open()\n    store.pick()\n    Store().open()\n",
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let before = edges(root);
    assert!(
        before
            .iter()
            .any(|e| e == "app.py:6 s.open -> store.Store.open (inferred)"),
        "{before:?}"
    );
    // A comment above everything: every line moves, nothing else changes.
    evident_testkit::fs::write_in(root, "store.py", &store("# moved\n", "return None"));
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_eq!(edges(root), before, "the same edges, now on the new rows");
    // `store.pick()`, `Store()` and `Store().open()` start with a name
    // imported from the file (resolved again by the import rule); `s.open()`
    // moved.
    assert_eq!(summary.resolved_calls, 3, "{summary:?}");
    common::assert_equals_rebuild(root, "after a comment");
    // A renamed method: the call into it is resolved again.
    evident_testkit::fs::write_in(
        root,
        "store.py",
        &store("# moved\n", "return None").replace("def open", "def close"),
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    assert!(
        !edges(root).iter().any(|e| e.contains("Store.open")),
        "{:?}",
        edges(root)
    );
    common::assert_equals_rebuild(root, "after renaming a method");
}

/// `@d def f` is `f = d(f)`: a call of `f` runs the wrapper `d` returns, and
/// the wrapper runs `f` through `d`'s parameter; an identity decorator or one
/// from outside leaves the call on `f`, also after the decorator's file is
/// edited. Calling an instance runs `__call__`; a default export bound to a
/// definition is that definition; a parameter that shadows a function is not it.
#[test]
fn decorators_instances_and_default_exports() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let wrapping =
        "def logged(fn):\n    def wrapper(*args):\n        return fn(*args)\n    return wrapper\n";
    evident_testkit::fs::write_all(
        root,
        &[
            ("deco.py", wrapping),
            (
                "main.py",
                "import functools\nfrom deco import logged\n\n\n@logged\ndef compute():\n    pass\n\n\nclass Job:\n    @logged\n    def run(self):\n        pass\n\n    @functools.lru_cache\n    def area(self):\n        pass\n\n    def start(self):\n        self.run()\n        self.area()\n\n\nclass Tracer:\n    def __call__(self, fn):\n        return fn\n\n\ndef g(area):\n    compute()\n    Tracer()(compute)\n    area()\n",
            ),
            ("util.js", "function helper() {}\nexport default helper;\n"),
            ("m.js", "import run from './util.js';\nexport function go() {\n  run();\n}\n"),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let all = edges(root);
    assert_edges(
        &all,
        &[
            "main.py:20 self.run -> deco.logged.wrapper (inferred)",
            "main.py:21 self.area -> main.Job.area (exact)",
            "main.py:30 compute -> deco.logged.wrapper (inferred)",
            "main.py:31 Tracer() -> main.Tracer.__call__ (inferred)",
            "m.js:3 run -> util.helper (exact)",
        ],
    );
    for wrong in ["compute -> main.compute", "main.py:32 area"] {
        assert!(
            !all.iter().any(|e| e.contains(wrong)),
            "unexpected {wrong}\n{}",
            all.join("\n")
        );
    }
    // The wrapper's own call reaches the decorated function in the file
    // that applies the decorator only (argument flow stays in one file).
    evident_testkit::fs::write_in(
        root,
        "deco.py",
        &format!("{wrapping}\n\n@logged\ndef local():\n    pass\n"),
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    assert_edges(&edges(root), &["deco.py:3 fn -> deco.local (inferred)"]);
    // An identity decorator: calls stay on the decorated functions.
    evident_testkit::fs::write_in(root, "deco.py", "def logged(fn):\n    return fn\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    assert_edges(
        &edges(root),
        &[
            "main.py:20 self.run -> main.Job.run (exact)",
            "main.py:30 compute -> main.compute (exact)",
        ],
    );
    common::assert_equals_rebuild(root, "after the decorator changed");
}

/// Calls neither resolved nor known to be outside: `path:line callee`.
fn unresolved(root: &Path) -> Vec<String> {
    call_rows(
        root,
        "SELECT f.path, c.line, c.callee, '-', '-' FROM calls c JOIN files f ON f.id = c.file_id
         WHERE c.id NOT IN (SELECT call_id FROM edges)
           AND c.id NOT IN (SELECT call_id FROM externals)
         ORDER BY f.path, c.line",
    )
    .into_iter()
    .map(|r| r.trim_end_matches(" -> - (-)").to_string())
    .collect()
}

#[test]
fn c_rules() {
    let (_tmp, root) = fixture();
    let all = edges(&root);
    assert_edges(
        &all,
        &[
            // through the header's prototype to the definition in util.c
            "c/src/main.c:5 util_add -> util_add (exact)",
            "c/src/main.c:11 run_ops -> run_ops (exact)",
            // declared in a header that util.h includes: includes are transitive
            "c/src/main.c:14 base_twice -> base_twice (exact)",
        ],
    );
    // The edge lands on the definition, not on the header's prototype.
    let target = call_rows(
        &root,
        "SELECT tf.path, t.start_line, c.callee, '', '' FROM edges g JOIN calls c ON c.id = g.call_id
         JOIN symbols t ON t.id = g.callee_id JOIN files tf ON tf.id = t.file_id
         WHERE c.callee = 'util_add'",
    );
    assert_eq!(target, vec!["c/src/util.c:3 util_add ->  ()"]);
    // Function pointers, through a field or a parameter: never guessed.
    let open = unresolved(&root);
    assert!(
        open.contains(&"c/src/main.c:6 o.apply".to_string()),
        "{open:#?}"
    );
    assert!(open.contains(&"c/src/main.c:7 cb".to_string()), "{open:#?}");
    let outside = externals(&root);
    assert!(outside.contains(&"c/src/main.c:8 printf -> printf (builtin)".to_string()));
    // A name no repository file defines, in a file including headers from
    // outside: theirs.
    assert!(
        outside.contains(&"c/src/main.c:13 deflateEnd -> deflateEnd (external)".to_string()),
        "{outside:#?}"
    );
    // `def` offers the definition first, then the header's declaration.
    let index = Index::open(&root).unwrap();
    let found = index.definition_at("c/src/main.c", 5, Some(14)).unwrap();
    let places: Vec<(String, u32)> = found
        .iter()
        .map(|e| (e.path.clone(), e.start_line))
        .collect();
    assert_eq!(
        places,
        vec![
            ("c/src/util.c".to_string(), 3),
            ("c/include/util.h".to_string(), 3)
        ]
    );
}

#[test]
fn cpp_rules() {
    let (_tmp, root) = fixture();
    assert_edges(
        &edges(&root),
        &[
            // `obj.m()` through the declared type, `obj->m()` through `new`
            "cpp/src/main.cpp:4 s.area -> geo::Shape::area (inferred)",
            "cpp/src/main.cpp:6 p.grow -> geo::Shape::grow (inferred)",
            // `Ns::f()` and `Ns::Cls::m()`, across the header's namespace
            "cpp/src/main.cpp:8 geo::scale -> geo::scale (exact)",
            "cpp/src/main.cpp:7 geo::Shape::unit -> geo::Shape::unit (exact)",
            // `this->m()` in a method defined out of class
            "cpp/src/shape.cpp:5 this.area -> geo::Shape::area (exact)",
            // a bare name in the reopened namespace
            "cpp/src/shape.cpp:3 scale -> geo::scale (exact)",
            // a member of a base class, in a method defined out of class
            "cpp/src/shape.cpp:7 shape_.grow -> geo::Shape::grow (inferred)",
        ],
    );
    // The out-of-class definitions are the targets, in shape.cpp.
    let targets = call_rows(
        &root,
        "SELECT tf.path, t.start_line, c.callee, '', '' FROM edges g JOIN calls c ON c.id = g.call_id
         JOIN symbols t ON t.id = g.callee_id JOIN files tf ON tf.id = t.file_id
         WHERE c.callee IN ('s.area', 'geo::scale') ORDER BY c.callee",
    );
    assert_eq!(
        targets,
        vec![
            "cpp/src/shape.cpp:6 geo::scale ->  ()",
            "cpp/src/shape.cpp:3 s.area ->  ()"
        ]
    );
}

#[test]
fn csharp_rules() {
    let (_tmp, root) = fixture();
    assert_edges(
        &edges(&root),
        &[
            // `using A.B;` → the namespace's directory; `using S = A.B.C;`
            "cs/Acme.App/Worker.cs:11 Strings.Upper -> Acme.Util.Strings.Upper (exact)",
            "cs/Acme.App/Worker.cs:12 S.Upper -> Acme.Util.Strings.Upper (exact)",
            "cs/Acme.App/Worker.cs:13 this.Stop -> Acme.App.Worker.Stop (exact)",
            "cs/Acme.App/Worker.cs:14 Worker -> Acme.App.Worker.Worker (exact)",
            "cs/Acme.App/Worker.cs:15 w.Stop -> Acme.App.Worker.Stop (inferred)",
            // an extension method on a receiver of unknown type: a guess
            "cs/Acme.App/Worker.cs:16 name.Shout -> Acme.Util.Strings.Shout (name_only)",
        ],
    );
}

#[test]
fn ruby_rules() {
    let (_tmp, root) = fixture();
    assert_edges(
        &edges(&root),
        &[
            // `Mod::Cls.new(...)` → `initialize`, through `require` and `lib/`
            "rb/bin/checkout.rb:5 Shop::Pricing -> Shop::Pricing::initialize (exact)",
            "rb/bin/checkout.rb:6 pricing.total -> Shop::Pricing::total (inferred)",
            // an implicit-`self` call without parentheses
            "rb/lib/shop/pricing.rb:8 apply -> Shop::Pricing::apply (exact)",
            "rb/bin/checkout.rb:9 checkout -> checkout (exact)",
        ],
    );
}

#[test]
fn php_rules() {
    let (_tmp, root) = fixture();
    assert_edges(
        &edges(&root),
        &[
            "php/src/Billing/Invoice.php:8 $this.log -> Acme\\Billing\\Invoice\\log (exact)",
            "php/src/Billing/Invoice.php:9 self.check -> Acme\\Billing\\Invoice\\check (exact)",
            // `use` through composer.json's PSR-4 map
            "php/src/Billing/Invoice.php:10 Formatter -> Acme\\Util\\Formatter (exact)",
            "php/src/Billing/Invoice.php:11 $f.format -> Acme\\Util\\Formatter\\format (inferred)",
            "php/src/Billing/Invoice.php:12 Formatter.make -> Acme\\Util\\Formatter\\make (exact)",
            // `new static()`
            "php/src/Util/Formatter.php:5 static -> Acme\\Util\\Formatter (exact)",
        ],
    );
}

#[test]
fn kotlin_scala_and_swift_rules() {
    let (_tmp, root) = fixture();
    assert_edges(
        &edges(&root),
        &[
            "kt/src/main/kotlin/com/acme/app/Worker.kt:8 Strings.pad -> com.acme.util.Strings.pad (exact)",
            // an aliased import of a top-level function: its package directory
            "kt/src/main/kotlin/com/acme/app/Worker.kt:9 trimText -> com.acme.util.trim (exact)",
            "kt/src/main/kotlin/com/acme/app/Worker.kt:10 stop -> com.acme.app.Worker.stop (exact)",
            // a class of the same package, no import
            "kt/src/main/kotlin/com/acme/app/Worker.kt:11 Helper -> com.acme.app.Helper (exact)",
            "kt/src/main/kotlin/com/acme/app/Worker.kt:12 h.help -> com.acme.app.Helper.help (inferred)",
            "scala/src/main/scala/com/acme/app/Worker.scala:7 Strings.pad -> com.acme.util.Strings.pad (exact)",
            "scala/src/main/scala/com/acme/app/Worker.scala:8 stop -> com.acme.app.Worker.stop (exact)",
            "scala/src/main/scala/com/acme/app/Worker.scala:10 w.stop -> com.acme.app.Worker.stop (inferred)",
            // `import Module` → `Sources/Module`; a struct's `init`
            "swift/Sources/App/main.swift:4 Circle -> Circle.init (exact)",
            "swift/Sources/App/main.swift:5 c.area -> Circle.area (inferred)",
            "swift/Sources/App/main.swift:6 render -> render (exact)",
        ],
    );
    // A namesake class in another language is never a target.
    assert!(!edges(&root)
        .iter()
        .any(|e| e.starts_with("scala/") && e.contains("Acme.App")));
}

#[test]
fn bash_and_lua_rules() {
    let (_tmp, root) = fixture();
    assert_edges(
        &edges(&root),
        &[
            // a function of a sourced script, and one of the same file
            "sh/deploy.sh:5 log_line -> log_line (exact)",
            "sh/deploy.sh:9 deploy_all -> deploy_all (exact)",
            // `require "a.b"` → `a/b.lua`; its table's function
            "lua/main.lua:4 util.sum -> lua.acme.util.M.sum (inferred)",
            "lua/main.lua:7 double -> lua.main.double (exact)",
        ],
    );
    let outside = externals(&root);
    // A command that is no function of the repository is a program.
    assert!(
        outside.contains(&"sh/deploy.sh:6 git -> git (external)".to_string()),
        "{outside:#?}"
    );
    assert!(outside.contains(&"sh/lib/log.sh:2 echo -> echo (builtin)".to_string()));
    assert!(outside.contains(&"lua/main.lua:7 print -> print (builtin)".to_string()));
}

/// A class whose base is written through a namesake (`class SCGI <
/// ::SCGI::Processor`, from Rack): resolving the base comes back to the class
/// being linearized. Indexing ends, and the base (outside) resolves nothing.
#[test]
fn a_base_named_through_its_own_class_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    evident_testkit::fs::write_in(
        &root,
        "lib/rack/scgi.rb",
        "module Rack\n  class SCGI < ::SCGI::Processor\n    def run\n      listen\n      process_request\n    end\n  end\nend\n",
    );
    index_repo(&root, &IndexOptions::default()).unwrap();
    assert!(edges(&root).is_empty(), "{:?}", edges(&root));
}

/// The graph commands and search on the new languages: callers of a C
/// function reach it through its header (the definition is the symbol),
/// impact climbs from a C++ method, outline lists a Ruby file's nesting, and
/// search finds a PHP method by its words.
#[test]
fn commands_work_on_the_new_languages() {
    let (_tmp, root) = fixture();
    let index = Index::open(&root).unwrap();

    let callers = index.callers("util_add", None, 1).unwrap();
    let sites: Vec<(String, u32)> = callers
        .iter()
        .map(|e| (e.path.clone(), e.start_line))
        .collect();
    assert_eq!(sites, vec![("c/src/main.c".to_string(), 5)]);

    // grow ← Shape::grow's callers: main (p->grow) and Painter::paint.
    let impact = index.impact("geo::Shape::grow", None, 2, 100).unwrap();
    let nodes: Vec<&str> = impact.nodes.iter().map(|n| n.name.as_str()).collect();
    assert!(nodes.contains(&"main"), "{nodes:?}");
    assert!(nodes.contains(&"geo::Painter::paint"), "{nodes:?}");

    let outline = index.outline("rb/lib/shop/pricing.rb").unwrap();
    let names: Vec<(&str, Kind)> = outline.iter().map(|e| (e.name.as_str(), e.kind)).collect();
    assert_eq!(
        names,
        vec![
            ("Shop", Kind::Module),
            ("Pricing", Kind::Class),
            ("initialize", Kind::Method),
            ("total", Kind::Method),
            ("apply", Kind::Method),
        ]
    );

    let found = index
        .search(&crate::common::chunk_query("Formatter format"))
        .unwrap();
    assert!(
        found
            .iter()
            .take(3)
            .any(|e| e.path == "php/src/Util/Formatter.php"),
        "{:?}",
        found.iter().map(|e| &e.path).collect::<Vec<_>>()
    );

    let graph = index.call_graph(Some("sh")).unwrap();
    assert!(graph
        .edges
        .iter()
        .any(|e| e.caller == "deploy_all" && e.callee == "log_line"));
}

/// Assembly in a `.h` (the kernel's `arch/m68k/math-emu/fp_decode.h`) reads
/// as C with errors; a callee text with a `)` before its `(` (`")@("
/// getuser.l`) resolves to nothing instead of failing the run.
#[test]
fn assembly_read_as_c_resolves_nothing_and_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    evident_testkit::fs::write_in(
        &root,
        "arch/fp_decode.h",
        "\tprintf\tPDECODE,\")@(\"\n\tgetuser.l (%a1),%a1,fp_err_ua1,%a1\n",
    );
    index_repo(&root, &IndexOptions::default()).unwrap();
    let calls = call_rows(
        &root,
        "SELECT f.path, c.line, c.callee, '', '' FROM calls c JOIN files f ON f.id = c.file_id",
    );
    assert!(calls.iter().any(|c| c.contains("getuser")), "{calls:?}");
    assert!(edges(&root).is_empty());
}

/// A change that marks most of a large repository's calls (a module every
/// file imports) resolves every call again rather than dropping edges one by
/// one; the result is the same as a rebuild.
#[test]
fn a_change_that_marks_most_calls_equals_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("common.py"), "def f():\n    return 1\n").unwrap();
    for file in 0..40 {
        let mut body = String::from("from common import f\n\n\ndef run():\n");
        for _ in 0..300 {
            body += "    f()\n";
        }
        std::fs::write(root.join(format!("m{file}.py")), body).unwrap();
    }
    let first = index_repo(root, &IndexOptions::default()).unwrap();
    assert_eq!(first.calls, 12_000, "{first:?}");
    std::fs::write(
        root.join("common.py"),
        "class Helper:\n    pass\n\n\ndef f():\n    return Helper()\n",
    )
    .unwrap();
    let second = index_repo(root, &IndexOptions::default()).unwrap();
    assert!(second.resolved_calls >= 12_000, "{second:?}");
    common::assert_equals_rebuild(root, "after a change every file sees");
}

/// A receiver that may hold values of several outside types is named by the
/// first of them by name, not by the order the run met them in (a resumed
/// run or a branch switch meets them in another order).
#[test]
fn several_outside_values_are_named_in_a_fixed_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // The list is met first, in the source and in the run.
    std::fs::write(
        root.join("m.py"),
        "def pairs(flag):\n    value = []\n    if flag:\n        value = {}\n    return value.items()\n",
    )
    .unwrap();
    index_repo(root, &IndexOptions::default()).unwrap();
    let rows = common::dump(root);
    let external: Vec<&String> = rows
        .iter()
        .filter(|r| r.starts_with("external | m.py | 5 |"))
        .collect();
    assert_eq!(
        external,
        ["external | m.py | 5 | value.items | dict.items | builtin"],
        "{rows:#?}"
    );
}
