//! First languages.

use super::*;

#[test]
fn python() {
    let f = facts("sample.py");
    insta::assert_snapshot!(render(&f));
    // Class attributes are definitions of the class (a constant when in capitals).
    let debug = def(&f, "DEBUG");
    assert_eq!(
        (debug.kind, debug.qualified_name.as_str()),
        (Kind::Constant, "pkg.sample.Config.DEBUG")
    );
    assert_eq!(def(&f, "name").kind, Kind::Variable);
    assert_eq!(def(&f, "name").qualified_name, "pkg.sample.Config.name");
    assert_eq!(f.module, "pkg.sample");
    let init = def(&f, "__init__");
    assert_eq!(
        (init.kind, init.qualified_name.as_str()),
        (Kind::Method, "pkg.sample.Store.__init__")
    );
    assert_eq!(def(&f, "inner").kind, Kind::Function);
    assert_eq!(
        def(&f, "inner").qualified_name,
        "pkg.sample.Store.open.inner"
    );
    assert_eq!(def(&f, "MAX_ITEMS").kind, Kind::Constant);
    assert_eq!(def(&f, "default_name").kind, Kind::Variable);
    let top = def(&f, "top_level");
    assert_eq!(
        top.start_line, 13,
        "the decorator belongs to the definition"
    );
    assert!(top
        .doc
        .as_deref()
        .unwrap()
        .starts_with("Add things.\n\nLonger text."));
    assert_eq!(def(&f, "Store").doc.as_deref(), Some("A store."));
    assert_eq!(def(&f, "__init__").doc, None);
    assert!(has_import(&f, "os.path", None, Some("osp")));
    assert!(has_import(&f, "sys", None, None));
    assert!(has_import(&f, ".", Some("sibling"), None));
    assert!(has_import(&f, "..pkg.mod", Some("helper"), Some("h")));
    assert!(has_import(&f, "..pkg.mod", Some("other"), None));
    assert!(has_import(&f, "x", Some("*"), None));
    assert!(has_call(&f, "h", Some("top_level")));
    assert!(has_call(&f, "self.open", Some("__init__")));
    assert!(has_call(&f, "sys.exit", Some("inner")));
    assert!(has_call(&f, "get_collection_name", Some("fetch")));
}

#[test]
fn rust() {
    let f = facts("sample.rs");
    insta::assert_snapshot!(render(&f));
    let new = def(&f, "new");
    assert_eq!(
        (new.kind, new.qualified_name.as_str()),
        (Kind::Method, "crate::pkg::sample::Holder::new")
    );
    assert_eq!(new.doc.as_deref(), Some("Makes one."));
    assert_eq!(
        def(&f, "Holder").doc.as_deref(),
        Some("A thing that holds rows."),
        "doc above #[derive]"
    );
    assert_eq!(def(&f, "name").kind, Kind::Method);
    assert_eq!(def(&f, "free_fn").kind, Kind::Function);
    assert_eq!(
        def(&f, "nested").qualified_name,
        "crate::pkg::sample::inner::nested"
    );
    assert_eq!(def(&f, "LIMIT").kind, Kind::Constant);
    assert!(has_import(&f, "std::collections", Some("HashMap"), None));
    assert!(has_import(&f, "crate::store", Some("Db"), None));
    assert!(has_import(&f, "crate::store", Some("Row"), Some("R")));
    assert!(has_import(&f, "crate::store::query", Some("*"), None));
    assert!(has_import(&f, "super::config", Some("Config"), Some("Cfg")));
    assert!(has_import(&f, "serde", None, None));
    assert!(has_import(&f, "self", Some("util"), None));
    assert!(has_call(&f, "Db::open", Some("new")));
    assert!(has_call(&f, "self.rows.clear", Some("load")));
    assert!(has_call(&f, "println", Some("load")));
    assert!(has_call(&f, "Cfg::default", Some("free_fn")));
}

#[test]
fn javascript() {
    let f = facts("sample.js");
    insta::assert_snapshot!(render(&f));
    // Exported and computed module bindings, and class fields.
    assert_eq!(def(&f, "VERSION").kind, Kind::Constant);
    assert_eq!(def(&f, "client").kind, Kind::Variable);
    let count = def(&f, "count");
    assert_eq!(
        (count.kind, count.qualified_name.as_str()),
        (Kind::Variable, "pkg/sample.Counter.count")
    );
    assert_eq!(def(&f, "limit").qualified_name, "pkg/sample.Counter.limit");
    assert!(has_import(&f, "react", Some("default"), Some("React")));
    assert!(has_import(
        &f,
        "react",
        Some("useState"),
        Some("useLocalState")
    ));
    assert!(has_import(&f, "react", Some("useEffect"), None));
    assert!(has_import(&f, "./utils", Some("*"), Some("utils")));
    assert!(has_import(&f, "./side-effect.css", None, None));
    assert!(has_import(
        &f,
        "./helper",
        Some("helper"),
        Some("publicHelper")
    ));
    // `const fs = require('fs')` binds what the module exports.
    assert!(has_import(&f, "fs", Some("default"), Some("fs")));
    let add = def(&f, "add");
    assert_eq!(
        add.doc.as_deref(),
        Some("Adds numbers."),
        "doc above `export`"
    );
    assert_eq!(add.qualified_name, "pkg/sample.add");
    assert_eq!(def(&f, "render").kind, Kind::Method);
    assert_eq!(def(&f, "arrow").kind, Kind::Function);
    let flush = def(&f, "flush");
    assert_eq!(
        (flush.kind, flush.qualified_name.as_str()),
        (Kind::Method, "pkg/sample.http.ServerResponse.flush"),
        "a prototype method whose receiver is a dotted path"
    );
    assert_eq!(
        def(&f, "init").kind,
        Kind::Method,
        "a function-valued key of an object literal passed to a call"
    );
    assert_eq!(def(&f, "LIMIT").kind, Kind::Constant);
    assert!(has_call(&f, "utils.sum", Some("add")));
    assert!(has_call(&f, "Renderer", Some("render")));
    assert!(has_call(&f, "fs.readFileSync", Some("arrow")));
}

#[test]
fn typescript() {
    let f = facts("sample.ts");
    insta::assert_snapshot!(render(&f));
    // Class fields and properties.
    for field in ["balance", "id"] {
        let d = def(&f, field);
        assert_eq!(d.kind, Kind::Variable, "{field}");
        assert!(
            d.qualified_name.ends_with(&format!("Account.{field}")),
            "{field}"
        );
    }
    assert!(has_import(
        &f,
        "./http/client",
        Some("Client"),
        Some("HttpClient")
    ));
    assert!(has_import(&f, "../options", Some("Options"), None));
    assert!(has_import(
        &f,
        "./default",
        Some("default"),
        Some("defaultExport")
    ));
    assert_eq!(def(&f, "Shape").kind, Kind::Interface);
    assert_eq!(def(&f, "Id").kind, Kind::Type);
    assert_eq!(def(&f, "Color").kind, Kind::Enum);
    assert_eq!(def(&f, "area").kind, Kind::Method);
    assert_eq!(def(&f, "Circle").doc.as_deref(), Some("A circle."));
    assert_eq!(
        def(&f, "origin").qualified_name,
        "pkg/sample.Geometry.origin"
    );
    assert!(has_call(&f, "square", Some("area")));
    assert!(has_call(&f, "HttpClient", Some("square")));
}

#[test]
fn tsx() {
    let f = facts("sample.tsx");
    insta::assert_snapshot!(render(&f));
    assert!(!f.has_syntax_errors);
    assert!(has_import(
        &f,
        "./components/button",
        Some("Button"),
        Some("Btn")
    ));
    assert_eq!(def(&f, "App").kind, Kind::Function);
    assert_eq!(def(&f, "Header").kind, Kind::Function);
    assert!(has_call(&f, "useState", Some("App")));
    assert!(has_call(&f, "format", Some("Header")));
}

#[test]
fn go() {
    let f = facts("sample.go");
    insta::assert_snapshot!(render(&f));
    assert_eq!(f.module, "server");
    let serve = def(&f, "Serve");
    assert_eq!(
        (serve.kind, serve.qualified_name.as_str()),
        (Kind::Method, "server.Server.Serve")
    );
    assert_eq!(serve.doc.as_deref(), Some("Serve runs forever."));
    assert_eq!(def(&f, "handle").qualified_name, "server.Server.handle");
    assert_eq!(def(&f, "Server").kind, Kind::Struct);
    assert_eq!(def(&f, "Handler").kind, Kind::Interface);
    assert_eq!(def(&f, "ID").kind, Kind::Type);
    assert_eq!(def(&f, "MaxConns").kind, Kind::Constant);
    assert!(has_import(&f, "fmt", None, None));
    assert!(has_import(&f, "strings", None, Some("str")));
    assert!(has_import(&f, "example.com/app/internal/store", None, None));
    assert!(has_call(&f, "str.ToUpper", Some("Serve")));
    assert!(has_call(&f, "store.Open", Some("NewServer")));
}

#[test]
fn java() {
    let f = facts("Sample.java");
    insta::assert_snapshot!(render(&f));
    // Fields: constants when static final, variables otherwise, each once.
    assert_eq!(def(&f, "count").kind, Kind::Variable);
    assert_eq!(def(&f, "label").kind, Kind::Variable);
    assert_eq!(def(&f, "MAX").kind, Kind::Constant);
    assert_eq!(
        f.definitions.iter().filter(|d| d.name == "MAX").count(),
        1,
        "a static final field is a constant only"
    );
    assert_eq!(f.module, "com.example.app");
    let run = def(&f, "run");
    assert_eq!(
        (run.kind, run.qualified_name.as_str()),
        (Kind::Method, "com.example.app.Sample.run")
    );
    assert_eq!(run.doc.as_deref(), Some("Runs it."));
    assert_eq!(def(&f, "Sample").doc.as_deref(), Some("A service."));
    assert_eq!(def(&f, "Callback").kind, Kind::Interface);
    assert_eq!(
        def(&f, "done").qualified_name,
        "com.example.app.Sample.Callback.done"
    );
    assert_eq!(def(&f, "LIMIT").kind, Kind::Constant);
    assert!(has_import(&f, "java.util", Some("List"), None));
    assert!(has_import(&f, "java.lang.Math", Some("max"), None));
    assert!(has_import(&f, "java.io", Some("*"), None));
    assert!(has_call(&f, "helper", Some("run")));
    assert!(has_call(&f, "System.out.println", Some("run")));
    assert!(has_call(&f, "Worker", Some("run")));
}

#[test]
fn c() {
    let f = facts("sample.c");
    insta::assert_snapshot!(render(&f));
    // C has one namespace: names are not prefixed by the file.
    assert_eq!(f.module, "");
    assert_eq!(def(&f, "MAX_ITEMS").kind, Kind::Macro);
    assert_eq!(def(&f, "SQUARE").kind, Kind::Macro);
    assert_eq!(def(&f, "value").kind, Kind::Union);
    assert_eq!(def(&f, "point").kind, Kind::Struct);
    assert_eq!(def(&f, "handler_fn").kind, Kind::Type);
    // The prototype is a declaration; the body is the definition; both `add`.
    let adds: Vec<_> = f.definitions.iter().filter(|d| d.name == "add").collect();
    assert_eq!(adds.len(), 2);
    assert!(adds[0].declaration && !adds[1].declaration);
    assert_eq!(adds[1].doc.as_deref(), Some("Sums two numbers."));
    // An include makes the header's names visible: a glob.
    assert!(has_import(&f, "util/strings.h", Some("*"), None));
    assert!(has_import(&f, "<stdio.h>", Some("*"), None));
    assert!(has_call(&f, "add", Some("run")));
    assert!(has_call(&f, "h", Some("run")));
}

#[test]
fn cpp() {
    let f = facts("sample.cpp");
    insta::assert_snapshot!(render(&f));
    assert_eq!(def(&f, "geo").kind, Kind::Namespace);
    let circle = def(&f, "Circle");
    assert_eq!(
        (circle.kind, circle.qualified_name.as_str()),
        (Kind::Class, "geo::Circle")
    );
    assert_eq!(circle.bases, vec!["Shape"]);
    // `double Circle::area() const {}` belongs to `Circle`; the in-class
    // line is its declaration.
    let areas: Vec<_> = f.definitions.iter().filter(|d| d.name == "area").collect();
    assert_eq!(areas.len(), 2);
    assert!(areas
        .iter()
        .all(|d| d.kind == Kind::Method && d.qualified_name == "geo::Circle::area"));
    assert!(areas[0].declaration && !areas[1].declaration);
    assert_eq!(areas[1].start_line, 16);
    // A template's extent starts at `template`.
    assert_eq!(def(&f, "twice").start_line, 22);
    assert!(has_call(&f, "p.area", Some("main")));
    assert!(has_call(&f, "geo::twice", Some("main")));
    assert!(has_call(&f, "Circle::unit", Some("main")));
    // `Circle c(2.0);` and `new Circle(3.0)` construct a `Circle`.
    assert_eq!(
        f.calls
            .iter()
            .filter(|c| c.callee == "Circle" && c.line >= 31 && c.line <= 32)
            .count(),
        2
    );
}

#[test]
fn csharp() {
    let f = facts("sample.cs");
    insta::assert_snapshot!(render(&f));
    assert_eq!(f.module, "Acme.App");
    assert_eq!(def(&f, "Worker").qualified_name, "Acme.App.Worker");
    assert_eq!(def(&f, "Name").kind, Kind::Property);
    assert_eq!(def(&f, "Limit").kind, Kind::Constant);
    assert_eq!(def(&f, "X").kind, Kind::Variable);
    assert_eq!(def(&f, "IRunner").kind, Kind::Interface);
    assert_eq!(def(&f, "Worker").bases, vec!["BaseWorker", "IRunner"]);
    // `using A.B;` imports the namespace's names; `using S = A.B.C;` one class.
    assert!(has_import(&f, "Acme.Util", Some("*"), None));
    assert!(has_import(&f, "Acme.Util", Some("Strings"), Some("Str")));
    assert!(has_call(&f, "this.Stop", Some("Run")));
    assert!(has_call(&f, "Name.Shout", Some("Run")));
    assert!(has_call(&f, "Helper", Some("Run")));
}

#[test]
fn ruby() {
    let f = facts("sample.rb");
    insta::assert_snapshot!(render(&f));
    assert_eq!(def(&f, "Billing").kind, Kind::Module);
    assert_eq!(def(&f, "Invoice").qualified_name, "Billing::Invoice");
    assert_eq!(def(&f, "Invoice").bases, vec!["Base"]);
    assert_eq!(def(&f, "RATE").kind, Kind::Constant);
    assert_eq!(def(&f, "total").kind, Kind::Property);
    assert_eq!(def(&f, "build").kind, Kind::Method);
    assert!(has_import(&f, "acme/util", Some("*"), None));
    assert!(has_import(&f, "./helpers/format", Some("*"), None));
    // Calls without parentheses and on the implicit `self`.
    assert!(has_call(&f, "compute", Some("tax")));
    assert!(has_call(&f, "log", Some("compute")));
    assert!(has_call(&f, "self.rate", Some("tax")));
    // `Formatter.new` constructs a `Formatter`; a bare `new` the own class.
    assert!(has_call(&f, "Formatter", Some("tax")));
    assert!(has_call(&f, "new", Some("build")));
    // The heredoc's text defines nothing.
    assert!(f.definitions.iter().all(|d| d.name != "not_a_method"));
}

#[test]
fn php() {
    let f = facts("sample.php");
    insta::assert_snapshot!(render(&f));
    assert_eq!(f.module, "App\\Billing");
    assert_eq!(def(&f, "Invoice").qualified_name, "App\\Billing\\Invoice");
    assert_eq!(def(&f, "Loggable").kind, Kind::Trait);
    assert_eq!(def(&f, "amount").kind, Kind::Property);
    // `use Loggable;` in a class mixes the trait in: a base.
    assert_eq!(
        def(&f, "Invoice").bases,
        vec!["Base", "Payable", "Loggable"]
    );
    assert!(has_import(&f, "App\\Util", Some("Formatter"), None));
    assert!(has_import(&f, "App\\Util", Some("Strings"), Some("Str")));
    assert!(has_import(&f, ".//helpers.php", Some("*"), None));
    assert!(has_call(&f, "$this.log", Some("pay")));
    assert!(has_call(&f, "self.make", Some("pay")));
    assert!(has_call(&f, "static.make", Some("pay")));
    assert!(has_call(&f, "parent.pay", Some("pay")));
    assert!(has_call(&f, "Formatter", Some("pay")));
}

#[test]
fn kotlin() {
    let f = facts("sample.kt");
    insta::assert_snapshot!(render(&f));
    assert_eq!(def(&f, "Worker").qualified_name, "com.acme.app.Worker");
    assert_eq!(def(&f, "Worker").bases, vec!["Base", "Runner"]);
    assert_eq!(def(&f, "Runner").kind, Kind::Interface);
    assert_eq!(def(&f, "Registry").kind, Kind::Object);
    assert_eq!(def(&f, "Mode").kind, Kind::Enum);
    assert_eq!(def(&f, "LIMIT").kind, Kind::Constant);
    assert_eq!(def(&f, "size").kind, Kind::Property);
    // A companion object's members belong to the class.
    assert_eq!(
        def(&f, "create").qualified_name,
        "com.acme.app.Worker.create"
    );
    assert!(has_import(&f, "com.acme.util", Some("Strings"), None));
    assert!(has_import(
        &f,
        "com.acme.util",
        Some("trim"),
        Some("trimText")
    ));
    assert!(has_import(&f, "com.acme.model", Some("*"), None));
    assert!(has_call(&f, "name.shout", Some("run")));
    assert!(has_call(&f, "trimText", Some("run")));
}
