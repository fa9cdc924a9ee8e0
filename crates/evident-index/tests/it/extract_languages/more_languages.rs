//! More languages.

use super::*;

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
