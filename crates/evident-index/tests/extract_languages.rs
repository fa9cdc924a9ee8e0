//! Per-language extraction: each fixture in `fixtures/lang/` against a
//! reviewed snapshot of its definitions, imports and call sites, plus explicit
//! checks of the facts each language must get right.

use evident_index::extract::{extract, FileFacts};
use evident_index::{lang, Kind};

fn facts(file: &str) -> FileFacts {
    let path = format!("{}/tests/fixtures/lang/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap();
    let spec = lang::for_path(file).unwrap();
    extract(spec, &format!("pkg/{file}"), &source)
}

/// A stable, reviewable rendering of a file's facts.
fn render(f: &FileFacts) -> String {
    let mut out = format!(
        "module: {}\nsyntax errors: {}\n",
        f.module, f.has_syntax_errors
    );
    for d in &f.definitions {
        let parent = d
            .parent
            .map_or("-".to_string(), |p| f.definitions[p].name.clone());
        out += &format!(
            "def {} {} [{}] {}-{} parent={} sig={:?}",
            d.kind, d.name, d.qualified_name, d.start_line, d.end_line, parent, d.signature
        );
        if let Some(doc) = &d.doc {
            out += &format!(" doc={doc:?}");
        }
        out += "\n";
    }
    for i in &f.imports {
        out += &format!(
            "import {}-{} module={:?} name={:?} alias={:?}\n",
            i.start_line, i.end_line, i.module, i.name, i.alias
        );
    }
    for c in &f.calls {
        let within = c
            .enclosing
            .map_or("-".to_string(), |e| f.definitions[e].qualified_name.clone());
        out += &format!("call {} {} in={}\n", c.line, c.callee, within);
    }
    out
}

fn def<'a>(f: &'a FileFacts, name: &str) -> &'a evident_index::extract::Definition {
    f.definitions
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no definition {name}"))
}

fn has_import(f: &FileFacts, module: &str, name: Option<&str>, alias: Option<&str>) -> bool {
    f.imports
        .iter()
        .any(|i| i.module == module && i.name.as_deref() == name && i.alias.as_deref() == alias)
}

fn has_call(f: &FileFacts, callee: &str, within: Option<&str>) -> bool {
    f.calls.iter().any(|c| {
        c.callee == callee && c.enclosing.map(|e| f.definitions[e].name.as_str()) == within
    })
}

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
    assert!(has_import(&f, "fs", None, None));
    let add = def(&f, "add");
    assert_eq!(
        add.doc.as_deref(),
        Some("Adds numbers."),
        "doc above `export`"
    );
    assert_eq!(add.qualified_name, "pkg/sample.add");
    assert_eq!(def(&f, "render").kind, Kind::Method);
    assert_eq!(def(&f, "arrow").kind, Kind::Function);
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
