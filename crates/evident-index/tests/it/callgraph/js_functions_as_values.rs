//! JavaScript functions written as values, each with the edge ECMAScript's
//! semantics gives: a function assigned to an undeclared name (a global, in
//! sloppy mode), `this.m = function` in a function run with `new`, a
//! function-valued key of an object literal bound to a name, a function
//! assigned to a key of a module-level name, and an assignment that binds
//! as a declaration does. The forms come from half A
//! of js-callgraph's ground truth (`bench/js_callgraph.py`).

use super::{answers_at_word, edges, indexed_files};

fn indexed(text: &str) -> Vec<String> {
    let (dir, _) = indexed_files(&[("main.js", text)]);
    edges(dir.path())
}

#[test]
fn a_function_assigned_to_an_undeclared_name_is_a_global_function() {
    let found = indexed("handler = x => {\n  return x;\n};\nhandler(10);\n");
    assert_eq!(found, ["main.js:4 handler -> main.handler (exact)"]);
}

#[test]
fn this_m_in_a_constructor_function_is_a_method_of_its_instances() {
    let found = indexed(
        "function Apple() {\n  this.grow = function () {};\n}\nvar apple = new Apple();\napple.grow();\n",
    );
    assert_eq!(
        found,
        [
            "main.js:4 Apple -> main.Apple (exact)",
            "main.js:5 apple.grow -> main.Apple.grow (inferred)"
        ]
    );
}

#[test]
fn a_function_valued_key_is_a_member_of_the_object_it_is_written_in() {
    let found = indexed(
        "var obj = {\n  run: function () {},\n  'stop': () => {},\n  count: 3,\n};\nobj.run();\nobj.stop();\n",
    );
    assert_eq!(
        found,
        [
            "main.js:6 obj.run -> main.obj.run (exact)",
            "main.js:7 obj.stop -> main.obj.stop (exact)"
        ]
    );
}

#[test]
fn an_assignment_binds_as_a_declaration_does() {
    let found = indexed("class Box {\n  open() {}\n}\nlet box;\nbox = new Box();\nbox.open();\n");
    assert!(
        found.contains(&"main.js:6 box.open -> main.Box.open (inferred)".to_string()),
        "{found:?}"
    );
}

#[test]
fn a_function_assigned_to_a_key_of_a_module_level_name_is_its_method() {
    let found = indexed(
        "var res = {};\nres.send = function (body) {\n  return this.json(body);\n};\n\
         res.json = (obj) => obj;\nexports.helper = function () {};\nres.send('x');\n",
    );
    assert_eq!(
        found,
        [
            "main.js:3 this.json -> main.res.json (exact)",
            "main.js:7 res.send -> main.res.send (exact)"
        ]
    );
}

#[test]
fn a_key_s_function_leaves_its_bare_name_to_the_module_binding() {
    // A named function expression binds its name in its own body only
    // (ECMAScript 15.2.5); elsewhere `send` is the module's `require`.
    const TEXT: &str = "var send = require('./send');\nvar res = {};\n\
        res.send = function send(body) {\n  return body;\n};\n\
        function stream(path) {\n  return send(path);\n}\n";
    let (_dir, index) = indexed_files(&[
        ("main.js", TEXT),
        ("send.js", "module.exports = function () {};\n"),
    ]);
    assert_eq!(
        answers_at_word(&index, ("main.js", TEXT), 7, "send", 0),
        ["send.js:1 send"]
    );
}
