//! Rules per language.

use super::*;

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

/// `@overload` signatures (PEP 484) declare; at run time the name is bound
/// to the last `def`, the implementation: a call runs it, and `def` offers
/// it first (Jedi's goto answers the same), the signatures after it as its
/// declarations. Both spellings of the decorator count.
#[test]
fn python_overloads_declare_the_implementation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let overloaded = |decorator: &str| {
        format!(
            "@{decorator}\ndef locate(name: str, strict: Literal[True]) -> int: ...\n\n\n\
             @{decorator}\ndef locate(name: str, strict: bool) -> int | None: ...\n\n\n\
             def locate(name, strict=True):\n    return 1\n\n\n\
             def main():\n    return locate(\"x\")\n"
        )
    };
    evident_testkit::fs::write_all(
        root,
        &[
            (
                "a.py",
                &format!("import typing as t\n\n\n{}", overloaded("t.overload")),
            ),
            (
                "b.py",
                &format!(
                    "from typing import overload\n\n\n{}",
                    overloaded("overload")
                ),
            ),
        ],
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    let conn = Connection::open(root.join(".evident/index.db")).unwrap();
    let index = Index::open(root).unwrap();
    for file in ["a.py", "b.py"] {
        let targets: Vec<u32> = conn
            .prepare(
                "SELECT s.start_line FROM edges e JOIN calls c ON c.id = e.call_id
                 JOIN symbols s ON s.id = e.callee_id JOIN files f ON f.id = c.file_id
                 WHERE f.path = ?1 AND c.callee = 'locate'",
            )
            .unwrap()
            .query_map([file], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(targets, [12], "{file}: the implementation only");
        let def = index.definition_at(file, 17, Some(12)).unwrap();
        let lines: Vec<u32> = def.iter().map(|e| e.start_line).collect();
        assert_eq!(lines, [12, 4, 8], "{file}");
        let reason = def[1].reason.clone().unwrap_or_default();
        assert!(reason.contains("its declaration; defined at"), "{reason}");
    }
}
