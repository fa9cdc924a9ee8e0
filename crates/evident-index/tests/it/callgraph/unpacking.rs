//! Python statements that hand a function or a class on without a plain
//! `x = f`, each with the edge its semantics gives: unpacking by position
//! (`a, (b, c) = f, (g, h)`, a starred target collecting the rest), chained
//! assignment, `raise Class`, an attribute holding a bound method, a
//! container filled by subscript, a constructor's argument kept in an
//! attribute, a call of what a call returns, and a nested class called
//! through its outer class. The forms come from the categories of half A of PyCG's
//! micro-benchmark (`bench/pycg_micro.py`).

use super::{edges, indexed_files};

const FUNCTIONS: &str = "def f1():\n    pass\n\n\ndef f2():\n    pass\n\n\ndef f3():\n    pass\n\n\ndef f4():\n    pass\n";

fn indexed(body: &str) -> Vec<String> {
    let text = format!("{FUNCTIONS}\n\n{body}");
    let (dir, _) = indexed_files(&[("main.py", text.as_str())]);
    // Lines of `body` count from 1: the functions and two blank lines come first.
    edges(dir.path())
        .into_iter()
        .map(|e| {
            let (at, rest) = e.split_once(' ').unwrap();
            let line: u32 = at.rsplit(':').next().unwrap().parse().unwrap();
            format!("{} {rest}", line - 16)
        })
        .collect()
}

#[test]
fn unpacking_binds_each_name_to_its_position() {
    let found = indexed("a, (b, c) = f1, (f2, f3)\na()\nb()\nc()\n");
    assert_eq!(
        found,
        [
            "2 a -> main.f1 (inferred)",
            "3 b -> main.f2 (inferred)",
            "4 c -> main.f3 (inferred)"
        ]
    );
}

#[test]
fn a_starred_target_holds_what_the_others_leave() {
    let found = indexed("a, *rest, z = f1, f2, f3, f4\na()\nrest[0]()\nz()\n");
    assert_eq!(
        found,
        [
            "2 a -> main.f1 (inferred)",
            "3 rest[0] -> main.f2 (inferred)",
            "3 rest[0] -> main.f3 (inferred)",
            "4 z -> main.f4 (inferred)"
        ]
    );
}

#[test]
fn a_chain_binds_every_name_to_the_innermost_value() {
    let found = indexed("def run():\n    a = b = f2\n    a()\n    b()\n");
    assert_eq!(
        found,
        ["3 a -> main.f2 (inferred)", "4 b -> main.f2 (inferred)"]
    );
}

#[test]
fn raising_a_class_makes_an_instance() {
    let found = indexed(
        "class Failed(Exception):\n    def __init__(self):\n        pass\n\n\nraise Failed\n",
    );
    assert_eq!(found, ["6 Failed -> main.Failed.__init__ (exact)"]);
}

#[test]
fn an_attribute_holding_a_method_calls_it() {
    let found = indexed(
        "class Job:\n    def __init__(self):\n        self.step = self.run\n\n    def go(self):\n        self.step()\n\n    def run(self):\n        pass\n",
    );
    assert_eq!(found, ["6 self.step -> main.Job.run (inferred)"]);
}

#[test]
fn a_subscript_assignment_fills_the_container() {
    let found = indexed("handlers = {}\nhandlers[\"b\"] = f2\nhandlers[\"b\"]()\n");
    assert_eq!(found, ["3 handlers[\"b\"] -> main.f2 (inferred)"]);
}

#[test]
fn a_constructor_argument_flows_to_the_attribute_it_sets() {
    let found = indexed(
        "class Job:\n    def __init__(self, step):\n        self.step = step\n\n    def go(self):\n        self.step()\n\n\nJob(f3).go()\n",
    );
    assert_eq!(
        found,
        [
            "6 self.step -> main.f3 (inferred)",
            "9 Job -> main.Job.__init__ (exact)",
            "9 Job(f3).go -> main.Job.go (inferred)"
        ]
    );
}

#[test]
fn a_call_of_a_call_runs_what_the_first_returns() {
    let found =
        indexed("def outer():\n    def inner():\n        pass\n    return inner\n\n\nouter()()\n");
    assert_eq!(
        found,
        [
            "7 outer -> main.outer (exact)",
            "7 outer() -> main.outer.inner (inferred)"
        ]
    );
}

#[test]
fn a_nested_class_called_through_its_outer_class_runs_its_constructor() {
    let found = indexed(
        "class Outer:\n    class Inner:\n        def __init__(self):\n            pass\n\n\nOuter.Inner()\n",
    );
    assert_eq!(
        found,
        ["7 Outer.Inner -> main.Outer.Inner.__init__ (exact)"]
    );
}

#[test]
fn a_value_declared_callable_is_no_instance_of_what_it_returns() {
    let found = indexed(
        "import typing as t\n\n\nclass App:\n    def __call__(self):\n        pass\n\n\nclass Info:\n    def __init__(self, make: t.Callable[..., App]):\n        self.make = make\n\n    def load(self):\n        self.make()\n",
    );
    // Calling `make` gives an `App`; it does not call one (`App.__call__`).
    assert!(!found.iter().any(|e| e.contains("__call__")), "{found:?}");
}
