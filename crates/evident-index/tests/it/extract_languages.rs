//! Per-language extraction: each fixture in `fixtures/lang/` against a
//! reviewed snapshot of its definitions, imports and call sites, plus explicit
//! checks of the facts each language must get right.

use evident_index::extract::{extract, FileFacts};
use evident_index::{lang, Kind};

use crate::common;

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
        if d.declaration {
            out += " declaration";
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

#[test]
fn swift() {
    let f = facts("sample.swift");
    insta::assert_snapshot!(render(&f));
    assert_eq!(def(&f, "Shape").kind, Kind::Protocol);
    assert_eq!(def(&f, "Circle").kind, Kind::Struct);
    assert_eq!(def(&f, "Circle").bases, vec!["Shape"]);
    assert_eq!(def(&f, "init").kind, Kind::Method);
    assert_eq!(def(&f, "radius").kind, Kind::Property);
    // An extension's methods belong to the type it extends.
    let grow = def(&f, "grow");
    assert_eq!(
        (grow.kind, grow.qualified_name.as_str()),
        (Kind::Method, "Circle.grow")
    );
    // Each enum case is a constant.
    assert_eq!(def(&f, "off").kind, Kind::Constant);
    assert!(has_import(&f, "AcmeUtil", Some("*"), None));
    assert!(has_call(&f, "self.flush", Some("draw")));
    assert!(has_call(&f, "Circle.unit", Some("draw")));
}

#[test]
fn scala() {
    let f = facts("sample.scala");
    insta::assert_snapshot!(render(&f));
    assert_eq!(def(&f, "Runner").kind, Kind::Trait);
    assert!(f
        .definitions
        .iter()
        .any(|d| d.name == "Worker" && d.kind == Kind::Object));
    assert!(has_import(&f, "com.acme.util", Some("Strings"), None));
    assert!(has_import(&f, "com.acme.util", Some("Trim"), Some("T")));
    assert!(has_import(&f, "com.acme.model", Some("*"), None));
    assert!(has_call(&f, "this.stop", Some("run")));
    assert!(has_call(&f, "Helper", Some("run")));
}

#[test]
fn bash() {
    let f = facts("sample.sh");
    insta::assert_snapshot!(render(&f));
    assert_eq!(def(&f, "greet").kind, Kind::Function);
    assert_eq!(def(&f, "greet").doc.as_deref(), Some("Prints a greeting."));
    assert_eq!(def(&f, "VERSION").kind, Kind::Constant);
    // The heredoc's `deploy() {...}` is text: one `deploy`, the real one.
    assert_eq!(
        f.definitions.iter().filter(|d| d.name == "deploy").count(),
        1
    );
    assert!(has_import(&f, "./lib/common.sh", Some("*"), None));
    assert!(has_import(&f, ".//lib/log.sh", Some("*"), None));
    assert!(has_call(&f, "greet", Some("deploy")));
    assert!(has_call(&f, "git", Some("deploy")));
}

#[test]
fn lua() {
    let f = facts("sample.lua");
    insta::assert_snapshot!(render(&f));
    assert_eq!(f.module, "pkg.sample");
    assert_eq!(def(&f, "add").doc.as_deref(), Some("Adds two numbers."));
    let deposit = def(&f, "deposit");
    assert_eq!(
        (deposit.kind, deposit.qualified_name.as_str()),
        (Kind::Method, "pkg.sample.Account.deposit")
    );
    assert!(has_import(&f, "acme.util", None, Some("util")));
    assert!(has_call(&f, "util.sum", Some("M_total")));
    assert!(has_call(&f, "self.log", Some("deposit")));
}

/// Extracts `source` as the language of `file`.
fn facts_of(file: &str, source: &str) -> FileFacts {
    extract(lang::for_path(file).unwrap(), file, source)
}

fn names(f: &FileFacts) -> Vec<&str> {
    f.definitions.iter().map(|d| d.name.as_str()).collect()
}

/// A syntax error between two definitions: the error is reported, and the
/// definitions on both sides of it are kept.
#[test]
fn syntax_errors_keep_the_other_definitions() {
    let cases: &[(&str, &str)] = &[
        (
            "a.c",
            "int before(void) { return 1; }\nint broken( { \nint after(void) { return 2; }\n",
        ),
        (
            "a.cpp",
            "int before() { return 1; }\nclass Broken { void f( };\nint after() { return 2; }\n",
        ),
        (
            "a.cs",
            "class Before { void F() {} }\nclass Broken { void G( }\nclass After { void H() {} }\n",
        ),
        (
            "a.rb",
            "def before\nend\ndef broken(\n  1 +\nend\ndef after\nend\n",
        ),
        (
            "a.php",
            "<?php\nfunction before() {}\nfunction broken( {\nfunction after() {}\n",
        ),
        (
            "a.kt",
            "fun before() {}\nfun broken() { val x = ) }\nfun after() {}\n",
        ),
        (
            "a.swift",
            "func before() {}\nfunc broken( {\nfunc after() {}\n",
        ),
        (
            "a.scala",
            "object O {\n  def before(): Int = 1\n  def broken( = \n  def after(): Int = 2\n}\n",
        ),
        (
            "a.sh",
            "before() {\n  echo 1\n}\nbroken() {\n  if then fi (\n}\nafter() {\n  echo 2\n}\n",
        ),
        (
            "a.lua",
            "function before() end\nfunction broken( end\nfunction after() end\n",
        ),
    ];
    for (file, source) in cases {
        let f = facts_of(file, source);
        assert!(f.has_syntax_errors, "{file}: the error is reported");
        let found = names(&f);
        assert!(
            found.contains(&"before") || found.contains(&"Before"),
            "{file}: {found:?}"
        );
        assert!(
            found.contains(&"after") || found.contains(&"After"),
            "{file}: {found:?}"
        );
    }
}

/// C macros that hide syntax: the file's ordinary definitions survive.
#[test]
fn confusing_c_macros() {
    let f = facts_of(
        "m.c",
        "#define DECLARE_HANDLER(name) int name(void)\n\
         #define BEGIN {\n\
         #define END }\n\
         static int before(void) { return 1; }\n\
         DECLARE_HANDLER(on_open);\n\
         int weird(void) BEGIN return 0; END\n\
         #ifdef FEATURE\n\
         int feature(void) {\n\
         #else\n\
         int feature(int x) {\n\
         #endif\n\
             return 0;\n\
         }\n\
         static int after(void) { return 2; }\n",
    );
    let found = names(&f);
    for name in ["DECLARE_HANDLER", "BEGIN", "END", "before", "after"] {
        assert!(found.contains(&name), "{name} in {found:?}");
    }
}

/// An Objective-C header is a `.h`: read as C (or C++), with errors, and its
/// plain C declarations are kept.
#[test]
fn objective_c_headers() {
    let f = facts_of(
        "Greeter.h",
        "#import <Foundation/Foundation.h>\n\
         @interface Greeter : NSObject\n\
         - (void)greet:(NSString *)name;\n\
         @property (nonatomic) int count;\n\
         @end\n\
         int plain_c_function(int x);\n\
         #define GREETING \"hi\"\n",
    );
    assert!(f.has_syntax_errors);
    assert_eq!(f.read_as, None, "C reads it with no more errors than C++");
    let found = names(&f);
    assert!(found.contains(&"plain_c_function"), "{found:?}");
    assert!(found.contains(&"GREETING"), "{found:?}");
}

/// A C header whose comments say "namespace" and "virtual" (the kernel's)
/// stays C.
#[test]
fn c_headers_that_mention_cpp_words_stay_c() {
    let f = facts_of(
        "ns.h",
        "/*\n * Each pid namespace has a virtual id; the class of a device.\n */\n\
         struct pid_namespace { int level; };\nint pid_nr_ns(struct pid_namespace *ns);\n",
    );
    assert_eq!(f.read_as, None);
    assert_eq!(def(&f, "pid_namespace").kind, Kind::Struct);
}

/// A C++ header named `.h` is read as C++ when C cannot read it.
#[test]
fn cpp_headers_named_h() {
    let f = facts_of(
        "widget.h",
        "namespace ui {\nclass Widget {\npublic:\n    void draw();\n};\n}\n",
    );
    assert!(!f.has_syntax_errors);
    assert_eq!(f.read_as, Some("cpp"), "stored as C++");
    let draw = def(&f, "draw");
    assert_eq!(draw.qualified_name, "ui::Widget::draw");
    assert!(draw.declaration);
}

/// Heredocs are text: what looks like code in them defines nothing, and
/// what follows them is read.
#[test]
fn heredocs_are_text() {
    let rb = facts_of(
        "h.rb",
        "SQL = <<~EOS\n  def fake_method; end\nEOS\ndef real_method\nend\n",
    );
    assert_eq!(names(&rb), vec!["SQL", "real_method"]);
    let sh = facts_of(
        "h.sh",
        "cat <<'EOF'\nfake() { :; }\nEOF\nreal() {\n  :\n}\n",
    );
    assert_eq!(names(&sh), vec!["real"]);
    let php = facts_of(
        "h.php",
        "<?php\n$t = <<<EOT\nfunction fake() {}\nEOT;\nfunction real() {}\n",
    );
    assert_eq!(names(&php), vec!["real"]);
}

/// PHP in HTML: the PHP islands are read, the HTML is left alone.
#[test]
fn php_mixed_with_html() {
    let f = facts_of(
        "page.php",
        "<!doctype html>\n<html><body>\n<?php function header_html() { return 1; } ?>\n\
         <p>function not_php() {}</p>\n<?php\nclass Page { function render() {} }\n?>\n</body></html>\n",
    );
    let found = names(&f);
    assert!(found.contains(&"header_html"), "{found:?}");
    assert!(found.contains(&"render"), "{found:?}");
    assert!(!found.contains(&"not_php"), "{found:?}");
}

/// Ruby: a bare name is a call of a method on `self`, unless the method binds
/// it (a parameter, a local): then it is a variable.
#[test]
fn ruby_bare_names_are_calls_unless_bound() {
    let f = facts_of(
        "r.rb",
        "class Cart\n  def total(items)\n    result = sum(items)\n    items\n    result\n  end\n\n  def refresh\n    reload\n  end\nend\n",
    );
    let callees: Vec<(&str, u32)> = f
        .calls
        .iter()
        .map(|c| (c.callee.as_str(), c.line))
        .collect();
    assert_eq!(callees, vec![("sum", 3), ("reload", 9)]);
}

/// Attribute macros a parser without the preprocessor cannot know
/// (`__init`, `__weak`, `__user`) are blanked before parsing: the kernel's
/// functions that carry them parse without errors, and their names and
/// signatures are still the text as written.
#[test]
fn c_attribute_macros_do_not_break_the_parse() {
    let f = facts_of(
        "drv.c",
        "static int __init drv_init(void)\n{\n\treturn 0;\n}\n\n\
         void __weak arch_hook(struct task *t)\n{\n}\n\n\
         long copy(void __user *to, const void *from);\n",
    );
    assert!(!f.has_syntax_errors);
    let init = def(&f, "drv_init");
    assert_eq!(init.signature, "static int __init drv_init(void)");
    assert_eq!((init.start_line, init.end_line), (1, 4));
    assert_eq!(def(&f, "arch_hook").kind, Kind::Function);
    assert!(def(&f, "copy").declaration);
}

/// A `.h` with syntax errors is tried as C++ only in a repository with C++
/// sources (a C project's headers are not parsed twice); when the first C++
/// file appears, the headers are read again and the index equals a rebuild.
#[test]
fn headers_are_tried_as_cpp_only_beside_cpp_sources() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Methods in a struct: C reads it with errors, C++ cleanly; no line
    // starts with a C++ marker.
    std::fs::write(
        root.join("shape.h"),
        "struct Shape {\n    int area() const;\n    int sides;\n};\n",
    )
    .unwrap();
    std::fs::write(
        root.join("main.c"),
        "#include \"shape.h\"\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let lang_of = |path: &str| -> String {
        let conn = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
        conn.query_row("SELECT lang FROM files WHERE path = ?1", [path], |r| {
            r.get(0)
        })
        .unwrap()
    };
    evident_index::index_repo(root, &Default::default()).unwrap();
    assert_eq!(lang_of("shape.h"), "c", "no C++ file: the header stays C");

    std::fs::write(
        root.join("shape.cpp"),
        "#include \"shape.h\"\nint Shape::area() const { return 0; }\n",
    )
    .unwrap();
    evident_index::index_repo(root, &Default::default()).unwrap();
    assert_eq!(
        lang_of("shape.h"),
        "cpp",
        "beside C++ sources it is read as C++"
    );
    common::assert_equals_rebuild(root, "after the first C++ file");
}

/// A file over `PART_BYTES` is parsed in parts. What the text defines, by
/// construction, is what is extracted: every definition at its line, methods
/// under their class, calls inside the function that makes them, and no
/// syntax error where the cuts fall.
#[test]
fn a_file_read_in_parts_gives_what_its_text_defines() {
    use evident_index::extract::{MAX_FACTS_PER_FILE, PART_BYTES};
    let padding = "x".repeat(300);
    let unit = |k: usize| {
        format!(
            "class Holder{k}:\n    def method_{k}(self):\n        \"\"\"{padding}\"\"\"\n        return helper_{k}(self)\n\n\ndef helper_{k}(value):\n    return value\n\n\n"
        )
    };
    let lines_per_unit = 10;
    let mut source = String::new();
    let mut units = 0;
    while source.len() < PART_BYTES * 5 / 2 {
        source.push_str(&unit(units));
        units += 1;
    }
    assert!(3 * units < MAX_FACTS_PER_FILE, "below the cap: {units}");
    let f = facts_of("big.py", &source);
    assert!(
        !f.has_syntax_errors,
        "parts are cut between top-level items"
    );
    assert_eq!(f.symbols_end_line, None);
    assert_eq!(f.line_count as usize, units * lines_per_unit);
    assert_eq!(f.definitions.len(), 3 * units);
    assert_eq!(f.calls.len(), units);
    for k in [0, 1, units / 3, units / 2 + 1, units - 1] {
        let first = (k * lines_per_unit + 1) as u32;
        let holder = f
            .definitions
            .iter()
            .position(|d| d.name == format!("Holder{k}"))
            .unwrap();
        let method = &f.definitions[holder + 1];
        assert_eq!(
            (
                f.definitions[holder].start_line,
                f.definitions[holder].end_line
            ),
            (first, first + 3)
        );
        assert_eq!(method.name, format!("method_{k}"));
        assert_eq!(method.parent, Some(holder));
        assert_eq!(method.qualified_name, format!("big.Holder{k}.method_{k}"));
        let helper = def(&f, &format!("helper_{k}"));
        assert_eq!(helper.start_line, first + 6);
        let call = f
            .calls
            .iter()
            .find(|c| c.callee == format!("helper_{k}"))
            .unwrap();
        assert_eq!(call.line, first + 3);
        assert_eq!(call.enclosing, Some(holder + 1), "inside method_{k}");
    }
}

/// A generated giant gives symbols until it passes `MAX_FACTS_PER_FILE`
/// definitions, then stops, and says from which line on it did not.
#[test]
fn a_giant_stops_giving_symbols_past_the_cap() {
    use evident_index::extract::MAX_FACTS_PER_FILE;
    let source: String = (0..MAX_FACTS_PER_FILE * 2)
        .map(|k| format!("def f{k}(x):\n    return x\n\n\n"))
        .collect();
    let f = facts_of("giant.py", &source);
    let n = f.definitions.len();
    assert!(
        (MAX_FACTS_PER_FILE..MAX_FACTS_PER_FILE * 2).contains(&n),
        "{n}"
    );
    let end = f.symbols_end_line.expect("capped");
    // Each function takes 4 lines: the first left out starts the text-only part.
    assert_eq!(end as usize, 4 * n + 1);
    assert_eq!(f.definitions[n - 1].name, format!("f{}", n - 1));
    assert_eq!(f.line_count as usize, 4 * MAX_FACTS_PER_FILE * 2);
}
