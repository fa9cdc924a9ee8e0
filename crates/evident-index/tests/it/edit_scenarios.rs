//! Edit-then-compare scenarios as data. Each starts from a small repository,
//! applies its edits one at a time with an incremental run after each, and
//! compares the index with a rebuild of the same files: the expected result
//! is what a clean build says, never what the incremental path wrote.

use evident_index::{index_repo, IndexOptions};
use evident_testkit::fs::{write_all, write_in};

use crate::common::assert_equals_rebuild;

/// One step of a scenario.
enum Edit {
    /// Write a file (new or changed).
    Write(&'static str, &'static str),
    /// Remove a file.
    Remove(&'static str),
}
use Edit::{Remove, Write};

/// A repository and the edits made to it, in order.
struct Scenario {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    edits: &'static [Edit],
}

const HEADER: &str = "int f(void);\nstatic inline int g(void) {\n  return 1;\n}\n#ifdef FAST\nstatic inline int h(void) { return 1; }\n#else\nstatic inline int h(void) { return 2; }\n#endif\n";
const HEADER_BODY_EDITED: &str = "int f(void);\nstatic inline int g(void) {\n  int x = 2;\n  return x;\n}\n#ifdef FAST\nstatic inline int h(void) { return 1; }\n#else\nstatic inline int h(void) { return 2; }\n#endif\n";
const HEADER_F_INLINE: &str = "static inline int f(void) { return 0; }\nstatic inline int g(void) {\n  int x = 2;\n  return x;\n}\n#ifdef FAST\nstatic inline int h(void) { return 1; }\n#else\nstatic inline int h(void) { return 2; }\n#endif\n";
const HEADER_SWAPPED: &str = "#ifdef FAST\nstatic inline int h(void) { return 1; }\n#else\nstatic inline int h(void) { return 2; }\n#endif\nstatic inline int g(void) {\n  int x = 2;\n  return x;\n}\nstatic inline int f(void) { return 0; }\n";

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "python: a module gains a function its importer already calls, then loses one",
        files: &[
            ("lib.py", "def a():\n    pass\n"),
            ("main.py", "from lib import a\n\n\ndef run():\n    a()\n    b()\n"),
        ],
        edits: &[
            Write("lib.py", "def a():\n    pass\n\n\ndef b():\n    pass\n"),
            Write("lib.py", "def b():\n    pass\n"),
        ],
    },
    Scenario {
        name: "python: a base class gains the method a subclass calls, then the base changes",
        files: &[
            ("base.py", "class Base:\n    pass\n"),
            ("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def run(self):\n        self.go()\n"),
        ],
        edits: &[
            Write("base.py", "class Base:\n    def go(self):\n        pass\n"),
            Write("sub.py", "from base import Base\n\n\nclass Sub(object):\n    def run(self):\n        self.go()\n"),
        ],
    },
    Scenario {
        name: "python: a re-export moves to another module of the package",
        files: &[
            ("pkg/__init__.py", "from .a import f\n"),
            ("pkg/a.py", "def f():\n    pass\n"),
            ("main.py", "from pkg import f\n\nf()\n"),
        ],
        edits: &[
            Write("pkg/b.py", "def f():\n    return 1\n"),
            Write("pkg/__init__.py", "from .b import f\n"),
            Remove("pkg/a.py"),
        ],
    },
    Scenario {
        name: "python: the file an import names is removed, then comes back",
        files: &[
            ("util.py", "def helper():\n    pass\n"),
            ("app.py", "import util\n\n\ndef go():\n    util.helper()\n"),
        ],
        edits: &[
            Remove("util.py"),
            Write("util.py", "def helper():\n    pass\n"),
        ],
    },
    Scenario {
        name: "javascript: a default export becomes a named one",
        files: &[
            ("lib.js", "export default function work() {}\n"),
            ("app.js", "import work from './lib.js';\nwork();\n"),
        ],
        edits: &[
            Write("lib.js", "export function work() {}\n"),
            Write("app.js", "import { work } from './lib.js';\nwork();\n"),
        ],
    },
    Scenario {
        name: "rust: a module is declared, then the old one is removed",
        files: &[
            ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            ("src/lib.rs", "mod a;\n\npub fn run() {\n    a::f();\n}\n"),
            ("src/a.rs", "pub fn f() {}\n"),
        ],
        edits: &[
            Write("src/b.rs", "pub fn g() {}\n"),
            Write("src/lib.rs", "mod a;\nmod b;\n\npub fn run() {\n    a::f();\n    b::g();\n}\n"),
            Remove("src/a.rs"),
        ],
    },
    Scenario {
        name: "go: a function moves between files of one package",
        files: &[
            ("p/a.go", "package p\n\nfunc F() {}\n"),
            ("p/b.go", "package p\n\nfunc G() { F() }\n"),
        ],
        edits: &[
            Remove("p/a.go"),
            Write("p/c.go", "package p\n\nfunc F() {}\n"),
        ],
    },
    Scenario {
        name: "python: a new function's return flows through an importer that spells it",
        files: &[
            ("a.py", "class Thing:\n    def run(self):\n        pass\n"),
            ("b.py", "import a\n\nv = a.make()\n"),
            ("c.py", "from b import v\n\nv.run()\n"),
            ("d.py", "import a\n\n\ndef go(t: a.Thing):\n    t.run()\n"),
        ],
        edits: &[
            Write("a.py", "class Thing:\n    def run(self):\n        pass\n\n\ndef make():\n    return Thing()\n"),
            Write("a.py", "class Item:\n    def run(self):\n        pass\n\n\ndef make():\n    return Item()\n"),
            Write("a.py", "class Item:\n    def run(self):\n        pass\n\n    def stop(self):\n        self.done = Item()\n"),
            Write("a.py", "class Thing:\n    def run(self):\n        pass\n"),
        ],
    },
    Scenario {
        name: "python: the class a function already returns is defined, then removed",
        files: &[
            ("base.py", "class Base:\n    def run(self):\n        pass\n"),
            ("a.py", "from base import Base\n\n\ndef factory():\n    return Widget()\n"),
            ("b.py", "from a import factory\n\nv = factory()\n"),
            ("c.py", "from b import v\n\nv.run()\n"),
        ],
        edits: &[
            Write(
                "a.py",
                "from base import Base\n\n\ndef factory():\n    return Widget()\n\n\nclass Widget(Base):\n    pass\n",
            ),
            Write("a.py", "from base import Base\n\n\ndef factory():\n    return Widget()\n"),
        ],
    },
    Scenario {
        name: "python: a kept class gains a method whose return a file without the import chains on",
        files: &[
            ("a.py", "class C:\n    def run(self):\n        pass\n\n\nclass D:\n    def run(self):\n        pass\n"),
            ("b.py", "from a import C\n\n\ndef make_c():\n    return C()\n"),
            ("c.py", "from b import make_c\n\nx = make_c()\ny = x.again()\ny.run()\n"),
        ],
        edits: &[
            Write(
                "a.py",
                "class C:\n    def run(self):\n        pass\n\n    def again(self):\n        return D()\n\n\nclass D:\n    def run(self):\n        pass\n",
            ),
            Write("a.py", "class C:\n    def run(self):\n        pass\n\n\nclass D:\n    def run(self):\n        pass\n"),
        ],
    },
    Scenario {
        name: "python: a base's call of a method only its subclasses define gains and loses an override",
        files: &[
            ("base.py", "class Base:\n    def go(self):\n        self.step()\n"),
            ("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def step(self):\n        pass\n"),
        ],
        edits: &[
            Write("more.py", "from base import Base\n\n\nclass More(Base):\n    def step(self):\n        return 1\n"),
            Write("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def other(self):\n        pass\n"),
            Write("more.py", "import base\n\n\nclass More(base.Base):\n    def step(self):\n        return 2\n"),
        ],
    },
    Scenario {
        name: "python: a subclass is renamed, then removed, under its base's self call",
        files: &[
            ("base.py", "class Base:\n    def go(self):\n        self.step()\n\n    def step(self):\n        pass\n"),
            ("sub.py", "from base import Base\n\n\nclass Sub(Base):\n    def step(self):\n        pass\n"),
            ("main.py", "from sub import Sub\n\nSub().go()\n"),
        ],
        edits: &[
            Write("sub.py", "from base import Base\n\n\nclass Other(Base):\n    def step(self):\n        pass\n"),
            Write("sub.py", "from base import Base\n"),
        ],
    },
    Scenario {
        name: "python: a class renamed whose methods others reach through instances and subclasses",
        files: &[
            (
                "lib.py",
                "class Parser:\n    def feed(self):\n        pass\n\n    def close(self):\n        pass\n\n\nclass Other:\n    def feed(self):\n        pass\n",
            ),
            ("make.py", "from lib import Parser\n\n\ndef make():\n    return Parser()\n"),
            ("use.py", "from make import make\n\n\ndef run(p):\n    make().feed()\n    p.feed()\n    p.close()\n"),
            ("sub.py", "from lib import Parser\n\n\nclass Sub(Parser):\n    def go(self):\n        self.close()\n"),
            ("app.py", "from sub import Sub\n\nSub().feed()\nSub().close()\n"),
        ],
        edits: &[
            Write(
                "lib.py",
                "class Reader:\n    def feed(self):\n        pass\n\n    def close(self):\n        pass\n\n\nclass Other:\n    def feed(self):\n        pass\n",
            ),
            Write(
                "lib.py",
                "class Reader:\n    def feed(self):\n        pass\n\n    def close(self):\n        pass\n\n\nclass Parser(Reader):\n    def shut(self):\n        pass\n\n\nclass Other:\n    def feed(self):\n        pass\n",
            ),
            Write(
                "lib.py",
                "class Parser:\n    def feed(self):\n        pass\n\n    def close(self):\n        pass\n\n\nclass Other:\n    def feed(self):\n        pass\n",
            ),
        ],
    },
    Scenario {
        name: "python: a module re-exports a name from elsewhere while gaining and losing others",
        files: &[
            ("a.py", "def f():\n    pass\n"),
            ("b.py", "def f():\n    return 1\n"),
            ("x.py", "from a import f\n\n\ndef g():\n    pass\n"),
            ("y.py", "from x import f\n\nf()\n"),
        ],
        edits: &[
            Write("x.py", "from b import f\n\n\ndef h():\n    pass\n"),
            Write("x.py", "from a import f\n\n\ndef g():\n    pass\n"),
        ],
    },
    Scenario {
        name: "python: a module gains and loses a class its importer reaches through the module",
        files: &[
            ("x.py", "class Old:\n    @classmethod\n    def create(cls):\n        pass\n"),
            ("y.py", "import x\n\nx.New.create()\nx.Old.create()\n"),
            ("z.js", "const m = require('./w');\n\nm.make().go();\n"),
            ("w.js", "function other() {}\n\nmodule.exports = { other };\n"),
        ],
        edits: &[
            Write("x.py", "class New:\n    @classmethod\n    def create(cls):\n        pass\n"),
            Write(
                "w.js",
                "function other() {}\n\nfunction make() {\n  return { go() {} };\n}\n\nmodule.exports = { other, make };\n",
            ),
            Write("x.py", "class Old:\n    @classmethod\n    def create(cls):\n        pass\n"),
        ],
    },
    Scenario {
        name: "python: a function removed and restored that a local of another module holds",
        files: &[
            ("lib.py", "class W:\n    def go(self):\n        pass\n\n\ndef make():\n    return W()\n"),
            (
                "app.py",
                "import lib\n\n\ndef run():\n    v = lib.make()\n    v.go()\n\n\ndef other():\n    lib.W().go()\n",
            ),
        ],
        edits: &[
            Write("lib.py", "class W:\n    def go(self):\n        pass\n"),
            Write("lib.py", "class W:\n    def go(self):\n        pass\n\n\ndef make():\n    return W()\n"),
        ],
    },
    Scenario {
        name: "python: a module gains a function another imports under an alias and holds",
        files: &[
            ("lib.py", "def g():\n    pass\n"),
            (
                "app.py",
                "from lib import f as h, g\n\n\ndef run():\n    h()\n    v = h\n    v()\n\n\ndef other():\n    g()\n",
            ),
        ],
        edits: &[
            Write("lib.py", "def g():\n    pass\n\n\ndef f():\n    pass\n"),
            Write("lib.py", "def g():\n    pass\n"),
        ],
    },
    Scenario {
        name: "python: a chain of bindings longer than the flow depth, its far end edited alone (resolved after the near end in a rebuild)",
        files: &[
            (
                "html.py",
                "class Element:\n    def count(self, element):\n        return 0\n\n    def finalize(self):\n        pass\n\n\nclass Root(Element):\n    pass\n\n\nclass Parser:\n    def __init__(self):\n        self.root = Root()\n\n\ndef parse(html):\n    parser = Parser()\n    document = parser.root\n    document.finalize()\n    return document\n",
            ),
            (
                "tests.py",
                "from html import parse\n\n\ndef parsed(html):\n    dom = parse(html)\n    return dom\n\n\ndef contains(response, text):\n    content = parsed(response)\n    return content.count(text)\n",
            ),
        ],
        edits: &[Write(
            "tests.py",
            "from html import parse\n\n\ndef parsed(html):\n    dom = parse(html)\n    return dom\n\n\ndef contains(response, text):\n    content = parsed(response)\n    return content.count(text)\n# edited\n",
        )],
    },
    Scenario {
        name: "python: a base class reached through calls, asked for first near and then deep in a chain, the far end edited alone",
        files: &[
            ("base.py", "class Counter:\n    def count(self, element):\n        return 0\n\n\nclass Element:\n    def counter(self):\n        return Counter()\n\n\nclass Kinds:\n    element = Element\n\n\ndef kinds():\n    return Kinds()\n\n\ndef picked():\n    return kinds()\n\n\ndef chosen():\n    return picked()\n\n\nregistry = chosen()\n"),
            ("html.py", "from base import registry\n\n\nclass Root(registry.element):\n    pass\n\n\ndef parse(html):\n    document = Root()\n    document.counter()\n    return document\n"),
            ("tests.py", "from html import parse\n\n\ndef contains(response, text):\n    counter = once_more(response)\n    return counter.count(text)\n\n\ndef once_more(html):\n    return again(html)\n\n\ndef again(html):\n    return counted(html)\n\n\ndef counted(html):\n    return parse(html).counter()\n"),
        ],
        edits: &[Write("tests.py", "from html import parse\n\n\ndef contains(response, text):\n    counter = once_more(response)\n    return counter.count(text)\n\n\ndef once_more(html):\n    return again(html)\n\n\ndef again(html):\n    return counted(html)\n\n\ndef counted(html):\n    return parse(html).counter()\n# edited\n")],
    },
    Scenario {
        name: "python: a name removed and added again past a glob import whose __all__ does not list it",
        files: &[
            ("lib.py", "def partition():\n    pass\n\n\ndef keep():\n    pass\n"),
            ("mid.py", "__all__ = [\"Index\"]\nfrom lib import partition\n\n\nclass Index:\n    pass\n"),
            ("user.py", "from mid import *\nfrom mid import partition as part\n\npartition()\npart()\nIndex()\n"),
        ],
        edits: &[
            Write("lib.py", "def keep():\n    pass\n"),
            Write("lib.py", "def partition():\n    pass\n\n\ndef keep():\n    pass\n"),
            Write("mid.py", "__all__ = [\"Index\", \"partition\"]\nfrom lib import partition\n\n\nclass Index:\n    pass\n"),
            Write("lib.py", "def keep():\n    pass\n"),
        ],
    },
    Scenario {
        name: "python: a class made in a function gains a constructor, then loses it",
        files: &[
            ("a.py", "def make():\n    class Made:\n        pass\n\n    return Made\n"),
            ("b.py", "from a import make\n\nK = make()\nK()\n"),
        ],
        edits: &[
            Write(
                "a.py",
                "def make():\n    class Made:\n        def __init__(self):\n            pass\n\n    return Made\n",
            ),
            Write("a.py", "def make():\n    class Made:\n        pass\n\n    return Made\n"),
        ],
    },
    Scenario {
        name: "python: a function added behind a glob re-export",
        files: &[
            ("pkg/__init__.py", "from .core import *\n"),
            ("pkg/core.py", "class Widget:\n    def go(self):\n        pass\n"),
            ("app.py", "from pkg import build\n\nbuild().go()\n"),
        ],
        edits: &[
            Write("pkg/core.py", "class Widget:\n    def go(self):\n        pass\n\n\ndef build():\n    return Widget()\n"),
            Write("pkg/core.py", "class Gadget:\n    def go(self):\n        pass\n\n\ndef build():\n    return Gadget()\n"),
            Write("pkg/core.py", "class Gadget:\n    def go(self):\n        pass\n"),
        ],
    },
    Scenario {
        name: "python: a function added behind a re-export by name, held by a value",
        files: &[
            ("pkg/__init__.py", "from .core import build\n"),
            ("pkg/core.py", "class Widget:\n    def go(self):\n        pass\n\n\nclass Other:\n    def go(self):\n        pass\n"),
            ("app.py", "from pkg import build\n\nv = build()\n"),
            ("app2.py", "from app import v\n\nv.go()\n"),
        ],
        edits: &[
            Write(
                "pkg/core.py",
                "class Widget:\n    def go(self):\n        pass\n\n\nclass Other:\n    def go(self):\n        pass\n\n\ndef build():\n    return Widget()\n",
            ),
            Write("pkg/core.py", "class Widget:\n    def go(self):\n        pass\n\n\nclass Other:\n    def go(self):\n        pass\n"),
        ],
    },
    Scenario {
        name: "javascript: a function added behind export *, then a class renamed",
        files: &[
            ("lib.js", "export class Box {\n  open() {}\n}\n"),
            ("mid.js", "export * from './lib.js';\n"),
            ("app.js", "import { make } from './mid.js';\nmake().open();\n"),
        ],
        edits: &[
            Write("lib.js", "export class Box {\n  open() {}\n}\nexport function make() {\n  return new Box();\n}\n"),
            Write("lib.js", "export class Crate {\n  open() {}\n}\nexport function make() {\n  return new Crate();\n}\n"),
            Write("lib.js", "export class Crate {\n  open() {}\n}\n"),
        ],
    },
    Scenario {
        name: "javascript: a key's function added to a required object, then removed",
        files: &[
            ("response.js", "var res = module.exports = {};\nres.json = function () {};\n"),
            ("app.js", "var res = require('./response');\nres.send('x');\nres.json();\n"),
        ],
        edits: &[
            Write("response.js", "var res = module.exports = {};\nres.json = function () {};\nres.send = function (b) {\n  this.json(b);\n};\n"),
            Write("response.js", "var res = module.exports = {};\nres.send = function (b) {};\n"),
            Write("response.js", "var res = module.exports = {};\n"),
        ],
    },
    Scenario {
        name: "rust: a function and a method added, then removed",
        files: &[
            ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "pub struct T;\n\nimpl T {\n    pub fn run(&self) {}\n}\n"),
            ("src/b.rs", "use crate::a::make;\n\npub fn go() {\n    make().run();\n    make().stop();\n}\n"),
        ],
        edits: &[
            Write("src/a.rs", "pub struct T;\n\nimpl T {\n    pub fn run(&self) {}\n}\n\npub fn make() -> T {\n    T\n}\n"),
            Write("src/a.rs", "pub struct T;\n\nimpl T {\n    pub fn run(&self) {}\n    pub fn stop(&self) {}\n}\n\npub fn make() -> T {\n    T\n}\n"),
            Write("src/a.rs", "pub struct T;\n\nimpl T {\n    pub fn run(&self) {}\n}\n"),
        ],
    },
    Scenario {
        name: "go: a constructor added to one file of a package, then renamed",
        files: &[
            ("go.mod", "module m\n"),
            ("p/t.go", "package p\n\ntype T struct{}\n\nfunc (t *T) Run() {}\n"),
            ("p/a.go", "package p\n\nfunc A() {}\n"),
            ("p/b.go", "package p\n\nfunc G() {\n\tv := NewT()\n\tv.Run()\n}\n"),
            ("q/q.go", "package q\n\nimport \"m/p\"\n\nfunc H() {\n\tv := p.NewT()\n\tv.Run()\n}\n"),
        ],
        edits: &[
            Write("p/a.go", "package p\n\nfunc A() {}\n\nfunc NewT() *T { return &T{} }\n"),
            Write("p/a.go", "package p\n\nfunc A() {}\n\nfunc MakeT() *T { return &T{} }\n"),
        ],
    },
    Scenario {
        name: "go: a constructor's return type changes in one file of a package",
        files: &[
            ("go.mod", "module m\n"),
            ("p/t.go", "package p\n\ntype T struct{}\n\nfunc (t *T) Run() {}\n\ntype U struct{}\n\nfunc (u *U) Run() {}\n"),
            ("p/a.go", "package p\n\nfunc NewT() *T { return &T{} }\n"),
            ("p/b.go", "package p\n\nfunc G() {\n\tv := NewT()\n\tv.Run()\n}\n"),
            ("q/q.go", "package q\n\nimport \"m/p\"\n\nfunc H() {\n\tv := p.NewT()\n\tv.Run()\n}\n"),
        ],
        edits: &[Write("p/a.go", "package p\n\nfunc NewT() *U { return &U{} }\n")],
    },
    Scenario {
        name: "java: a method added to a class, then the class renamed",
        files: &[
            ("p/A.java", "package p;\n\npublic class A {\n}\n"),
            ("p/B.java", "package p;\n\npublic class B {\n    public void run() {}\n}\n"),
            ("p/C.java", "package p;\n\nclass C {\n    void go(A a) {\n        a.make().run();\n    }\n}\n"),
        ],
        edits: &[
            Write("p/A.java", "package p;\n\npublic class A {\n    public B make() {\n        return new B();\n    }\n}\n"),
            Write("p/A.java", "package p;\n\npublic class Z {\n    public B make() {\n        return new B();\n    }\n}\n"),
        ],
    },
    Scenario {
        name: "c: the definition behind a header's prototype is renamed",
        files: &[
            ("util.h", "int f(void);\n"),
            ("util.c", "#include \"util.h\"\nint f(void) { return 1; }\n"),
            ("main.c", "#include \"util.h\"\nint main(void) { return f(); }\n"),
        ],
        edits: &[
            Write("util.c", "#include \"util.h\"\nint g(void) { return 1; }\n"),
            Write("util.h", "int g(void);\n"),
        ],
    },
    Scenario {
        name: "python: a removed name held by locals, one returned to another file",
        files: &[
            ("lib.py", "class Engine:\n    def run(self):\n        pass\n\n\nclass Other:\n    def run(self):\n        pass\n\n\ndef make():\n    return Engine()\n"),
            ("mid.py", "from lib import make\n\n\ndef build():\n    e = make()\n    f = e\n    return f\n\n\ndef use():\n    p = make()\n    p.run()\n    g = make\n    g().run()\n"),
            ("app.py", "from mid import build\n\n\ndef go():\n    build().run()\n"),
            // A closure returns its outer function's local.
            ("closure.py", "from lib import make\n\n\ndef build():\n    e = make()\n\n    def inner():\n        return e\n\n    return inner\n"),
            ("app2.py", "from closure import build\n\n\ndef go():\n    build()().run()\n"),
        ],
        edits: &[
            Write("lib.py", "class Engine:\n    def run(self):\n        pass\n\n\nclass Other:\n    def run(self):\n        pass\n"),
            Write("lib.py", "class Engine:\n    def run(self):\n        pass\n\n\nclass Other:\n    def run(self):\n        pass\n\n\ndef make():\n    return Other()\n"),
            Write("lib.py", "class Engine:\n    def run(self):\n        pass\n\n\nclass Other:\n    def run(self):\n        pass\n\n\ndef make():\n    return Engine()\n"),
        ],
    },
    Scenario {
        name: "c: a header's bodies edited, a prototype made inline, variants swapped",
        files: &[
            ("util.h", HEADER),
            ("util.c", "#include \"util.h\"\nint f(void) {\n  return g();\n}\n"),
            ("main.c", "#include \"util.h\"\nint main(void) {\n  return f() + g() + h();\n}\n"),
        ],
        edits: &[
            // A body edit: every line after it moves, nothing else changes.
            Write("util.h", HEADER_BODY_EDITED),
            // The prototype becomes the definition includers reach.
            Write("util.h", HEADER_F_INLINE),
            // The same definitions in another order.
            Write("util.h", HEADER_SWAPPED),
            Write("util.h", "int f(void);\n"),
        ],
    },
];

#[test]
fn every_edit_scenario_equals_a_rebuild() {
    for scenario in SCENARIOS {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_all(root, scenario.files);
        index_repo(root, &IndexOptions::default()).unwrap();
        for (step, edit) in scenario.edits.iter().enumerate() {
            match edit {
                Write(path, text) => write_in(root, path, text),
                Remove(path) => std::fs::remove_file(root.join(path)).unwrap(),
            }
            index_repo(root, &IndexOptions::default()).unwrap();
            assert_equals_rebuild(root, &format!("{}, after edit {}", scenario.name, step + 1));
        }
    }
}

/// A definition added to a module that many files import resolves again
/// only the calls that can see it: the module's own, those made through
/// its import, and those of files that spell the new name. A changed
/// return value, which flows to every importer, resolves them all.
#[test]
fn a_new_name_resolves_only_the_calls_that_can_see_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let util =
        "class Conn:\n    def send(self):\n        pass\n\n\ndef connect():\n    return Conn()\n";
    write_in(root, "util.py", util);
    let importers = 20;
    for i in 0..importers {
        let text = format!(
            "import util\n\n\nclass Job{i}:\n    def start(self):\n        self.step()\n        self.step()\n\n    def step(self):\n        util.connect().send()\n"
        );
        write_in(root, &format!("job{i}.py"), &text);
    }
    write_in(root, "user.py", "import util\n\nutil.fresh_helper()\n");
    index_repo(root, &IndexOptions::default()).unwrap();
    let added = format!("{util}\n\ndef fresh_helper():\n    return Conn()\n");
    write_in(root, "util.py", &added);
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_equals_rebuild(root, "a function added to util.py");
    // Per importer, its two calls through `util` (`util.connect()` and
    // `.send()` on what it returns); plus user.py's call and util.py's own
    // two (`Conn()` in each function).
    let through_import = 2 * importers as u64 + 1 + 2;
    assert!(
        summary.resolved_calls <= through_import,
        "a new name resolved {} calls again, more than the {through_import} that can see it",
        summary.resolved_calls
    );
    let changed = added.replace(
        "def connect():\n    return Conn()",
        "def connect():\n    return None",
    );
    write_in(root, "util.py", &changed);
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_equals_rebuild(root, "a changed return value in util.py");
    assert!(
        summary.resolved_calls >= 4 * importers as u64,
        "a changed return value resolves every importer's calls again, not {}",
        summary.resolved_calls
    );
}

#[test]
fn a_header_body_edit_resolves_only_calls_into_its_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_in(root, "util.h", HEADER);
    let includers = 20;
    for i in 0..includers {
        let text =
            format!("#include \"util.h\"\nint use_{i}(void) {{\n  return f() + g() + h();\n}}\n");
        write_in(root, &format!("use_{i}.c"), &text);
    }
    index_repo(root, &IndexOptions::default()).unwrap();
    write_in(root, "util.h", HEADER_BODY_EDITED);
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_equals_rebuild(root, "a header's body edited");
    // The includers read the same definitions, so their calls keep their
    // edges; only the calls of `h` resolve again: its two `#ifdef`
    // variants share a name and kind, so their rows take new ids.
    assert_eq!(summary.resolved_calls, includers as u64, "{summary:?}");
    // A prototype made a definition changes what every includer reaches.
    write_in(root, "util.h", HEADER_F_INLINE);
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_equals_rebuild(root, "a prototype made inline");
    assert!(
        summary.resolved_calls >= 3 * includers as u64,
        "{summary:?}"
    );
}

/// A removed name that importers hold only in locals (`parts = split(x)`)
/// changes their own calls, not what other files read of them: their
/// importers keep their edges. One that returns such a local passes it on.
#[test]
fn a_removed_name_held_only_by_locals_does_not_flow_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let lib = "def split(x):\n    return [x]\n\n\ndef join(x):\n    return x\n";
    write_in(root, "lib.py", lib);
    // Another function's local of the same name, returned, holds no `split`.
    write_in(root, "holder.py", "from lib import split\n\n\ndef tidy(x):\n    parts = split(x)\n    parts.sort()\n    return 1\n\n\ndef other():\n    parts = []\n    return parts\n");
    let dependants = 20;
    for i in 0..dependants {
        let text =
            format!("import holder\n\n\ndef use_{i}():\n    holder.tidy(1)\n    holder.tidy(2)\n");
        write_in(root, &format!("dep_{i}.py"), &text);
    }
    index_repo(root, &IndexOptions::default()).unwrap();
    write_in(root, "lib.py", "def join(x):\n    return x\n");
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_equals_rebuild(root, "a function only a local held removed");
    assert!(
        summary.resolved_calls < dependants as u64,
        "the dependants' calls were resolved again: {summary:?}"
    );
    // Returned, the local tells the dependants what `tidy` gives them.
    write_in(root, "lib.py", lib);
    write_in(
        root,
        "holder.py",
        "from lib import split\n\n\ndef tidy(x):\n    parts = split(x)\n    return parts\n",
    );
    index_repo(root, &IndexOptions::default()).unwrap();
    write_in(root, "lib.py", "def join(x):\n    return x\n");
    let summary = index_repo(root, &IndexOptions::default()).unwrap();
    assert_equals_rebuild(root, "a function a returned local held removed");
    assert!(
        summary.resolved_calls >= 2 * dependants as u64,
        "a returned local passes the change on: {summary:?}"
    );
}

/// Runs given a walk memory (a long-lived process's: the last walk, the
/// import resolver, and the paths a watcher named) equal a rebuild, also
/// when the file that says where an alias leads changes: the resolver is
/// kept only while sources alone change.
#[test]
fn runs_given_a_walk_memory_equal_a_rebuild() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tsconfig = |to: &str| {
        format!(r#"{{"compilerOptions":{{"baseUrl":".","paths":{{"@lib/*":["src/{to}/*"]}}}}}}"#)
    };
    write_in(root, "tsconfig.json", &tsconfig("a"));
    write_in(
        root,
        "src/a/util.ts",
        "export function helper() { return 1; }\n",
    );
    write_in(
        root,
        "src/b/util.ts",
        "export function helper() { return 2; }\n",
    );
    write_in(
        root,
        "main.ts",
        "import { helper } from '@lib/util';\nhelper();\n",
    );
    let memory = Arc::new(Mutex::new(evident_index::WalkMemory::default()));
    let options = IndexOptions {
        walk_memory: Some(memory.clone()),
        ..IndexOptions::default()
    };
    index_repo(root, &options).unwrap();
    let main_twice = "import { helper } from '@lib/util';\nhelper();\nhelper();\n";
    let steps: [(&str, String); 4] = [
        // A source edit: the resolver is kept.
        ("main.ts", main_twice.to_string()),
        // The alias now leads elsewhere: a kept resolver would say `src/a`.
        ("tsconfig.json", tsconfig("b")),
        (
            "src/b/more.ts",
            "export function extra() { return 3; }\n".to_string(),
        ),
        (
            "main.ts",
            format!("{main_twice}import {{ extra }} from '@lib/more';\nextra();\n"),
        ),
    ];
    for (path, text) in steps {
        write_in(root, path, &text);
        memory.lock().unwrap().changed(path);
        index_repo(root, &options).unwrap();
        assert_equals_rebuild(root, &format!("after writing {path}"));
    }
}
