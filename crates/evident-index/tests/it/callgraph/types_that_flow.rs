//! Types that flow.

use super::*;

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
    // imported from the file, but a comment changes nothing an importer
    // reads: they keep their edges, and `s.open()` moved. What is left is
    // the file's own call.
    assert_eq!(summary.resolved_calls, 1, "{summary:?}");
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
