//! The language table: everything evident knows about a language that is not
//! in its query file.
//!
//! Adding a language is one grammar crate, one `queries/<lang>.scm`, one row in
//! [`LANGUAGES`] and a fixture; no other code learns about it.

pub mod docs;
pub mod extract;
pub mod imports;
mod js_project;
pub mod locals;
pub mod roles;

use std::sync::OnceLock;

use tree_sitter::{Language as Grammar, Query};

/// How a file's module path (the prefix of its qualified names) is derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleNaming {
    /// `pkg/mod.py` → `pkg.mod`; a package stem (`pkg/__init__.py`,
    /// `acme/init.lua`) names its directory: `pkg`.
    Dotted,
    /// `src/a/b.rs` → `crate::a::b`; `lib.rs`, `main.rs` and `mod.rs` name their directory.
    RustCrate,
    /// The path without its extension: `src/util/math.ts` → `src/util/math`.
    Path,
    /// No prefix: names live in one namespace per program, nested only by
    /// the language's own scopes (C, C++ and Ruby namespaces, Bash functions).
    Global,
}

/// How an import's module text is turned into a file of the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportResolution {
    /// Dotted modules, relative dots, tried against the repo root, the importing
    /// file's directory and detected source roots.
    Python,
    /// `crate::`, `self::`, `super::` paths within the file's crate.
    Rust,
    /// `./x` and `../x` specifiers with extension and `index` probing.
    JsRelative,
    /// Import paths under the module path declared in `go.mod`; the target is a directory.
    GoModule,
    /// Fully qualified class names matched against `a/b/C.<ext>` path
    /// suffixes (the extensions given); a package is its directory.
    JvmClass(&'static [&'static str]),
    /// `#include "x.h"` beside the file, then through the include
    /// directories (`compile_commands.json`'s `-I`, else `include/` roots);
    /// `<x.h>` through the include directories only.
    CInclude,
    /// `using A.B;` names a namespace: the directory `A/B` (or `A.B`) by
    /// path suffix; `using S = A.B.C;` a class file `C.cs` in it.
    CSharpNamespace,
    /// `require "a/b"` through `lib/` roots and the repository root;
    /// `./a/b` (`require_relative`) beside the file.
    RubyRequire,
    /// `use A\B\C` through `composer.json`'s PSR-4 map, else by path
    /// suffix; `require`/`include` paths beside the file, then from the root.
    PhpComposer,
    /// `import Module`: a SwiftPM target directory (`Sources/Module`).
    SwiftModule,
    /// `source path` / `. path`: beside the file, then from the root.
    ShellSource,
    /// `require "a.b"`: `a/b.lua` or `a/b/init.lua` from the root, the
    /// file's directory, `lua/`, `src/` and `lib/` roots.
    LuaModule,
}

/// One row of the language table.
pub struct LanguageSpec {
    /// Stable name stored in the index (`files.lang`).
    pub name: &'static str,
    /// File extensions, without the dot.
    pub extensions: &'static [&'static str],
    grammar: fn() -> Grammar,
    query_sources: &'static [&'static str],
    /// Parameters and locals for `def` (`*-locals.scm`, see `locals.rs`).
    locals_sources: &'static [&'static str],
    /// Separator of qualified names (`.` or `::`).
    pub separator: &'static str,
    pub module_naming: ModuleNaming,
    pub import_resolution: ImportResolution,
    /// Node kinds that hold comments; consecutive ones right above a definition are its doc.
    pub comment_kinds: &'static [&'static str],
    /// Node kinds that may sit between a doc comment and its definition (attributes).
    pub doc_skip_kinds: &'static [&'static str],
    /// Node kinds that wrap a definition and belong to its extent (decorators, `export`).
    pub wrapper_kinds: &'static [&'static str],
    /// The local name a plain `import a.b.c` binds.
    pub module_binding: ModuleBinding,
    /// Methods a constructor call lands on; `$class` means the class's own name.
    pub constructors: &'static [&'static str],
    /// A bare `f()` inside a method may call a method of the same class (Java).
    pub implicit_this: bool,
    /// A class body runs as a scope of its own: code in it (a decorator, an
    /// attribute's value) sees the names the body bound before (Python).
    pub class_body_is_scope: bool,
    /// Receivers that name the enclosing instance or class: `self.m()`, `this.m()`.
    pub self_receivers: &'static [&'static str],
    /// Receivers that name the base class: `super.m()`.
    pub base_receivers: &'static [&'static str],
    /// Bare names whose call constructs the enclosing class: `cls(...)`, `Self(...)`.
    pub class_names: &'static [&'static str],
    /// First segments that make a call a module path, resolved like an import:
    /// `crate::a::f()`, `super::f()`.
    pub module_path_heads: &'static [&'static str],
    /// File stems that stand for their directory as a module: `pkg/__init__.py`
    /// is the module `pkg`.
    pub package_stems: &'static [&'static str],
    /// A class without a constructor of its own runs its base's (Python's
    /// `__init__`, JavaScript's `constructor`; not Java's, whose implicit
    /// constructor is the class's own).
    pub inherited_constructors: bool,
    /// Files of one directory share one package scope: their top-level names
    /// are visible to each other without an import (Go, Java).
    pub directory_is_package: bool,
    /// Names the language itself provides (functions, types, global objects):
    /// a call through one, when nothing in the repository has the name, is a
    /// `builtin` target.
    pub builtins: &'static [&'static str],
    /// The type of a string literal, whose methods are builtins (`", ".join`).
    pub string_type: Option<&'static str>,
    /// Builtins that are plain data types: a value of one (a literal, a call
    /// of it, a declared type) has builtin methods. Other builtins' results
    /// (`type(...)`, `getattr(...)`, `super()`) may be the repository's own.
    pub builtin_types: &'static [&'static str],
    /// The method that calling an instance runs (Python's `__call__`).
    pub call_method: Option<&'static str>,
    /// Languages whose definitions a declaration of this one may name (a C
    /// header's prototype, defined in a `.c` or `.cpp` file).
    pub defined_in: &'static [&'static str],
    /// A call through a field (`p->handler()`) is a function pointer: the
    /// language has no methods, so nothing is guessed by name (C).
    pub fields_are_pointers: bool,
    /// A bare call nothing in the repository defines is an external program
    /// (Bash commands: `git`, `grep`).
    pub commands_are_external: bool,
    /// Identifiers the parser is not shown (blanked to spaces): attribute
    /// macros that expand to nothing it needs (`__init`, `__user`), which a
    /// parser without the preprocessor takes for syntax errors.
    pub blank_identifiers: &'static [&'static str],
    /// Glob imports are textual inclusion: a file sees every top-level name
    /// of every file its includes reach, however deep (C's `#include`).
    pub includes_are_transitive: bool,
    /// Another language a file may be written in (a C `.h` that is C++):
    /// tried when the file has syntax errors or a line starts with one of
    /// `fallback_markers`; kept when it reads the file without errors where
    /// this language does not, or, with a marker, with no more errors.
    pub fallback: Option<&'static str>,
    pub fallback_markers: &'static [&'static str],
    /// File names (globs, with case) that are tests in this language, beyond
    /// the names every language shares ([`roles`]).
    pub test_files: &'static [&'static str],
    /// File names (globs) that only declare an interface (type stubs): the
    /// code they describe lives in another file.
    pub interface_files: &'static [&'static str],
}

/// Which name `import a.b.c` (no alias, no imported name) makes visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleBinding {
    /// `a` (Python).
    FirstSegment,
    /// `c` (Go packages, Rust `use a::b::c`).
    LastSegment,
}

impl std::fmt::Debug for LanguageSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl LanguageSpec {
    pub fn grammar(&self) -> Grammar {
        (self.grammar)()
    }

    /// The compiled extraction query, built once per process.
    pub fn query(&self) -> &'static Query {
        static QUERIES: OnceLock<Vec<OnceLock<Query>>> = OnceLock::new();
        self.compiled(&QUERIES, self.query_sources, "queries")
    }

    /// The compiled locals query, built once per process; `None` when the
    /// language has none.
    pub fn locals_query(&self) -> Option<&'static Query> {
        static QUERIES: OnceLock<Vec<OnceLock<Query>>> = OnceLock::new();
        (!self.locals_sources.is_empty())
            .then(|| self.compiled(&QUERIES, self.locals_sources, "locals query"))
    }

    /// This language's cell of `cells`, compiled from `sources` on first use.
    fn compiled(
        &self,
        cells: &'static OnceLock<Vec<OnceLock<Query>>>,
        sources: &[&str],
        what: &str,
    ) -> &'static Query {
        let index = LANGUAGES
            .iter()
            .position(|l| l.name == self.name)
            .expect("spec comes from LANGUAGES");
        let cells = cells.get_or_init(|| LANGUAGES.iter().map(|_| OnceLock::new()).collect());
        cells[index].get_or_init(|| {
            Query::new(&self.grammar(), &sources.concat())
                .unwrap_or_else(|e| panic!("{what} for {} do not compile: {e}", self.name))
        })
    }
}

const PY_QUERY: &str = include_str!("../../queries/python.scm");
const RS_QUERY: &str = include_str!("../../queries/rust.scm");
const JS_QUERY: &str = include_str!("../../queries/javascript.scm");
const JS_ONLY_QUERY: &str = include_str!("../../queries/javascript-only.scm");
const TS_QUERY: &str = include_str!("../../queries/typescript.scm");
const GO_QUERY: &str = include_str!("../../queries/go.scm");
const JAVA_QUERY: &str = include_str!("../../queries/java.scm");
const PY_LOCALS: &str = include_str!("../../queries/python-locals.scm");
const RS_LOCALS: &str = include_str!("../../queries/rust-locals.scm");
const JS_LOCALS: &str = include_str!("../../queries/javascript-locals.scm");
const JS_ONLY_LOCALS: &str = include_str!("../../queries/javascript-only-locals.scm");
const TS_LOCALS: &str = include_str!("../../queries/typescript-locals.scm");
const GO_LOCALS: &str = include_str!("../../queries/go-locals.scm");
const JAVA_LOCALS: &str = include_str!("../../queries/java-locals.scm");

const C_STYLE_COMMENTS: &[&str] = &["comment"];

/// JavaScript's (and TypeScript's) builtin data types: literals and values
/// of these have builtin methods.
const JS_BUILTIN_TYPES: &[&str] = &[
    "Array", "String", "Map", "Set", "WeakMap", "WeakSet", "Promise", "Date", "RegExp", "Number",
    "Boolean",
];

/// JavaScript's (and TypeScript's) global functions and objects.
const JS_BUILTINS: &[&str] = &[
    "console",
    "Math",
    "JSON",
    "Object",
    "Array",
    "Number",
    "String",
    "Boolean",
    "Promise",
    "Date",
    "RegExp",
    "Error",
    "TypeError",
    "RangeError",
    "Symbol",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "Reflect",
    "Proxy",
    "BigInt",
    "Intl",
    "parseInt",
    "parseFloat",
    "isNaN",
    "isFinite",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "queueMicrotask",
    "require",
    "fetch",
    "structuredClone",
    "encodeURIComponent",
    "decodeURIComponent",
    "globalThis",
    "process",
    "Buffer",
    "window",
    "document",
];

fn no_grammar() -> Grammar {
    unreachable!("every row of LANGUAGES names its grammar")
}

/// The values a row leaves unsaid: a language without classes, imports
/// or builtins of note. Each row sets what its language has.
const DEFAULTS: LanguageSpec = LanguageSpec {
    name: "",
    extensions: &[],
    grammar: no_grammar,
    query_sources: &[],
    locals_sources: &[],
    separator: ".",
    module_naming: ModuleNaming::Path,
    import_resolution: ImportResolution::JvmClass(&[]),
    comment_kinds: C_STYLE_COMMENTS,
    doc_skip_kinds: &[],
    wrapper_kinds: &[],
    module_binding: ModuleBinding::LastSegment,
    constructors: &[],
    implicit_this: false,
    class_body_is_scope: false,
    self_receivers: &[],
    base_receivers: &[],
    class_names: &[],
    module_path_heads: &[],
    package_stems: &[],
    inherited_constructors: false,
    directory_is_package: false,
    builtins: &[],
    string_type: None,
    builtin_types: &[],
    call_method: None,
    defined_in: &[],
    fields_are_pointers: false,
    commands_are_external: false,
    blank_identifiers: &[],
    includes_are_transitive: false,
    fallback: None,
    fallback_markers: &[],
    test_files: &[],
    interface_files: &[],
};

/// C's standard library and the common POSIX calls: builtins of C and C++.
const C_BUILTINS: &[&str] = &[
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "vprintf",
    "vfprintf",
    "vsnprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "getchar",
    "fgets",
    "fgetc",
    "scanf",
    "sscanf",
    "fscanf",
    "fopen",
    "fclose",
    "fread",
    "fwrite",
    "fflush",
    "fseek",
    "ftell",
    "rewind",
    "feof",
    "ferror",
    "perror",
    "remove",
    "rename",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "abort",
    "exit",
    "atexit",
    "atoi",
    "atol",
    "atof",
    "strtol",
    "strtoul",
    "strtoll",
    "strtoull",
    "strtod",
    "qsort",
    "bsearch",
    "abs",
    "labs",
    "rand",
    "srand",
    "getenv",
    "system",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "memchr",
    "strlen",
    "strcpy",
    "strncpy",
    "strcat",
    "strncat",
    "strcmp",
    "strncmp",
    "strchr",
    "strrchr",
    "strstr",
    "strtok",
    "strdup",
    "strndup",
    "strerror",
    "isalpha",
    "isdigit",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isprint",
    "isxdigit",
    "toupper",
    "tolower",
    "assert",
    "sizeof",
    "offsetof",
    "va_start",
    "va_end",
    "va_arg",
    "va_copy",
    "setjmp",
    "longjmp",
    "signal",
    "raise",
    "time",
    "clock",
    "difftime",
    "mktime",
    "localtime",
    "gmtime",
    "strftime",
    "open",
    "close",
    "read",
    "write",
    "lseek",
    "unlink",
    "fork",
    "execv",
    "execvp",
    "waitpid",
    "pipe",
    "dup",
    "dup2",
    "getpid",
    "sleep",
    "usleep",
    "errno",
];

/// Attribute macros of C and C++ code (the Linux kernel's, compilers'),
/// blanked before parsing, like ctags' `-I` list.
const C_ATTRIBUTE_MACROS: &[&str] = &[
    "__init",
    "__exit",
    "__initdata",
    "__initconst",
    "__exitdata",
    "__ref",
    "__weak",
    "__user",
    "__kernel",
    "__iomem",
    "__percpu",
    "__rcu",
    "__force",
    "__must_check",
    "__always_inline",
    "__maybe_unused",
    "__always_unused",
    "__used",
    "__cold",
    "__pure",
    "__visible",
    "__read_mostly",
    "__ro_after_init",
    "__cacheline_aligned",
    "__cacheline_aligned_in_smp",
    "__packed",
    "__noreturn",
    "__sched",
    "__nocfi",
    "noinline",
    "notrace",
    "asmlinkage",
    "__cdecl",
    "__stdcall",
    "__fastcall",
];

/// C++'s standard namespace and the C library it includes.
const CPP_BUILTINS: &[&str] = &[
    "std",
    "printf",
    "fprintf",
    "snprintf",
    "puts",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "strlen",
    "strcmp",
    "strncmp",
    "strcpy",
    "abort",
    "exit",
    "assert",
    "sizeof",
    "static_cast",
    "dynamic_cast",
    "reinterpret_cast",
    "const_cast",
    "move",
    "forward",
    "swap",
    "make_unique",
    "make_shared",
    "getenv",
];

const C_QUERY: &str = include_str!("../../queries/c.scm");
const C_LOCALS: &str = include_str!("../../queries/c-locals.scm");
const CPP_QUERY: &str = include_str!("../../queries/cpp.scm");
const CPP_LOCALS: &str = include_str!("../../queries/cpp-locals.scm");
const CSHARP_QUERY: &str = include_str!("../../queries/c-sharp.scm");
const CSHARP_LOCALS: &str = include_str!("../../queries/c-sharp-locals.scm");
const RUBY_QUERY: &str = include_str!("../../queries/ruby.scm");
const RUBY_LOCALS: &str = include_str!("../../queries/ruby-locals.scm");
const PHP_QUERY: &str = include_str!("../../queries/php.scm");
const PHP_LOCALS: &str = include_str!("../../queries/php-locals.scm");
const KOTLIN_QUERY: &str = include_str!("../../queries/kotlin.scm");
const KOTLIN_LOCALS: &str = include_str!("../../queries/kotlin-locals.scm");
const SWIFT_QUERY: &str = include_str!("../../queries/swift.scm");
const SWIFT_LOCALS: &str = include_str!("../../queries/swift-locals.scm");
const SCALA_QUERY: &str = include_str!("../../queries/scala.scm");
const SCALA_LOCALS: &str = include_str!("../../queries/scala-locals.scm");
const BASH_QUERY: &str = include_str!("../../queries/bash.scm");
const BASH_LOCALS: &str = include_str!("../../queries/bash-locals.scm");
const LUA_QUERY: &str = include_str!("../../queries/lua.scm");
const LUA_LOCALS: &str = include_str!("../../queries/lua-locals.scm");

/// Every language evident indexes.
pub static LANGUAGES: &[LanguageSpec] = &[
    LanguageSpec {
        name: "python",
        extensions: &["py", "pyi"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        query_sources: &[PY_QUERY],
        locals_sources: &[PY_LOCALS],
        separator: ".",
        module_naming: ModuleNaming::Dotted,
        import_resolution: ImportResolution::Python,
        comment_kinds: &["comment"],
        doc_skip_kinds: &[],
        wrapper_kinds: &["decorated_definition"],
        module_binding: ModuleBinding::FirstSegment,
        constructors: &["__init__"],
        implicit_this: false,
        class_body_is_scope: true,
        self_receivers: &["self", "cls"],
        base_receivers: &["super"],
        class_names: &["cls"],
        module_path_heads: &[],
        package_stems: &["__init__"],
        inherited_constructors: true,
        directory_is_package: false,
        builtins: &[
            "abs",
            "all",
            "any",
            "ascii",
            "bin",
            "bool",
            "breakpoint",
            "bytearray",
            "bytes",
            "callable",
            "chr",
            "classmethod",
            "compile",
            "complex",
            "delattr",
            "dict",
            "dir",
            "divmod",
            "enumerate",
            "eval",
            "exec",
            "filter",
            "float",
            "format",
            "frozenset",
            "getattr",
            "globals",
            "hasattr",
            "hash",
            "help",
            "hex",
            "id",
            "input",
            "int",
            "isinstance",
            "issubclass",
            "iter",
            "len",
            "list",
            "locals",
            "map",
            "max",
            "memoryview",
            "min",
            "next",
            "object",
            "oct",
            "open",
            "ord",
            "pow",
            "print",
            "property",
            "range",
            "repr",
            "reversed",
            "round",
            "set",
            "setattr",
            "slice",
            "sorted",
            "staticmethod",
            "str",
            "sum",
            "super",
            "tuple",
            "type",
            "vars",
            "zip",
            "BaseException",
            "Exception",
            "ArithmeticError",
            "AssertionError",
            "AttributeError",
            "EOFError",
            "ImportError",
            "IndexError",
            "KeyError",
            "KeyboardInterrupt",
            "LookupError",
            "MemoryError",
            "NameError",
            "NotImplementedError",
            "OSError",
            "OverflowError",
            "RecursionError",
            "RuntimeError",
            "StopIteration",
            "SyntaxError",
            "SystemExit",
            "TypeError",
            "UnicodeDecodeError",
            "UnicodeEncodeError",
            "UnicodeError",
            "ValueError",
            "ZeroDivisionError",
            "FileNotFoundError",
            "PermissionError",
            "TimeoutError",
            "DeprecationWarning",
            "UserWarning",
            "Warning",
        ],
        string_type: Some("str"),
        builtin_types: &[
            "str",
            "list",
            "dict",
            "set",
            "frozenset",
            "tuple",
            "bytes",
            "bytearray",
            "int",
            "float",
            "complex",
            "bool",
            "range",
            "memoryview",
        ],
        call_method: Some("__call__"),
        test_files: &["tests.py"],
        interface_files: &["*.pyi"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "rust",
        extensions: &["rs"],
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        query_sources: &[RS_QUERY],
        locals_sources: &[RS_LOCALS],
        separator: "::",
        module_naming: ModuleNaming::RustCrate,
        import_resolution: ImportResolution::Rust,
        comment_kinds: &["line_comment", "block_comment"],
        doc_skip_kinds: &["attribute_item"],
        wrapper_kinds: &[],
        module_binding: ModuleBinding::LastSegment,
        constructors: &[],
        implicit_this: false,
        class_body_is_scope: false,
        self_receivers: &["self", "Self"],
        base_receivers: &["super"],
        class_names: &["Self"],
        module_path_heads: &["crate", "super", "self"],
        package_stems: &["mod", "lib"],
        inherited_constructors: false,
        directory_is_package: false,
        builtins: &[
            "Some", "Ok", "Err", "Box", "Vec", "String", "Option", "Result", "drop", "Default",
            "From", "Into", "Iterator", "HashMap", "HashSet", "BTreeMap", "BTreeSet",
        ],
        string_type: Some("str"),
        builtin_types: &["String", "Vec"],
        call_method: None,
        test_files: &["tests.rs"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "javascript",
        extensions: &["js", "jsx", "mjs", "cjs"],
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        query_sources: &[JS_QUERY, JS_ONLY_QUERY],
        locals_sources: &[JS_LOCALS, JS_ONLY_LOCALS],
        separator: ".",
        module_naming: ModuleNaming::Path,
        import_resolution: ImportResolution::JsRelative,
        comment_kinds: C_STYLE_COMMENTS,
        doc_skip_kinds: &[],
        wrapper_kinds: &["export_statement"],
        module_binding: ModuleBinding::LastSegment,
        constructors: &["constructor"],
        implicit_this: false,
        class_body_is_scope: false,
        self_receivers: &["this", "self"],
        base_receivers: &["super"],
        class_names: &[],
        module_path_heads: &[],
        package_stems: &["index"],
        inherited_constructors: true,
        directory_is_package: false,
        builtins: JS_BUILTINS,
        string_type: Some("String"),
        builtin_types: JS_BUILTIN_TYPES,
        call_method: None,
        ..DEFAULTS
    },
    LanguageSpec {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        query_sources: &[JS_QUERY, TS_QUERY],
        locals_sources: &[JS_LOCALS, TS_LOCALS],
        separator: ".",
        module_naming: ModuleNaming::Path,
        import_resolution: ImportResolution::JsRelative,
        comment_kinds: C_STYLE_COMMENTS,
        doc_skip_kinds: &[],
        wrapper_kinds: &["export_statement"],
        module_binding: ModuleBinding::LastSegment,
        constructors: &["constructor"],
        implicit_this: false,
        class_body_is_scope: false,
        self_receivers: &["this", "self"],
        base_receivers: &["super"],
        class_names: &[],
        module_path_heads: &[],
        package_stems: &["index"],
        inherited_constructors: true,
        directory_is_package: false,
        builtins: JS_BUILTINS,
        string_type: Some("String"),
        builtin_types: JS_BUILTIN_TYPES,
        call_method: None,
        interface_files: &["*.d.ts", "*.d.mts", "*.d.cts"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "tsx",
        extensions: &["tsx"],
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        query_sources: &[JS_QUERY, TS_QUERY],
        locals_sources: &[JS_LOCALS, TS_LOCALS],
        separator: ".",
        module_naming: ModuleNaming::Path,
        import_resolution: ImportResolution::JsRelative,
        comment_kinds: C_STYLE_COMMENTS,
        doc_skip_kinds: &[],
        wrapper_kinds: &["export_statement"],
        module_binding: ModuleBinding::LastSegment,
        constructors: &["constructor"],
        implicit_this: false,
        class_body_is_scope: false,
        self_receivers: &["this", "self"],
        base_receivers: &["super"],
        class_names: &[],
        module_path_heads: &[],
        package_stems: &["index"],
        inherited_constructors: true,
        directory_is_package: false,
        builtins: JS_BUILTINS,
        string_type: Some("String"),
        builtin_types: JS_BUILTIN_TYPES,
        call_method: None,
        ..DEFAULTS
    },
    LanguageSpec {
        name: "go",
        extensions: &["go"],
        grammar: || tree_sitter_go::LANGUAGE.into(),
        query_sources: &[GO_QUERY],
        locals_sources: &[GO_LOCALS],
        separator: ".",
        module_naming: ModuleNaming::Path,
        import_resolution: ImportResolution::GoModule,
        comment_kinds: C_STYLE_COMMENTS,
        doc_skip_kinds: &[],
        wrapper_kinds: &[],
        module_binding: ModuleBinding::LastSegment,
        constructors: &[],
        implicit_this: false,
        class_body_is_scope: false,
        self_receivers: &["self", "this"],
        base_receivers: &[],
        class_names: &[],
        module_path_heads: &[],
        package_stems: &[],
        inherited_constructors: false,
        directory_is_package: true,
        builtins: &[
            "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make",
            "max", "min", "new", "panic", "print", "println", "real", "recover",
        ],
        string_type: None,
        builtin_types: &[],
        call_method: None,
        ..DEFAULTS
    },
    LanguageSpec {
        name: "java",
        extensions: &["java"],
        grammar: || tree_sitter_java::LANGUAGE.into(),
        query_sources: &[JAVA_QUERY],
        locals_sources: &[JAVA_LOCALS],
        separator: ".",
        module_naming: ModuleNaming::Path,
        import_resolution: ImportResolution::JvmClass(&["java"]),
        comment_kinds: &["line_comment", "block_comment"],
        doc_skip_kinds: &[],
        wrapper_kinds: &[],
        module_binding: ModuleBinding::LastSegment,
        constructors: &["$class"],
        implicit_this: true,
        class_body_is_scope: false,
        self_receivers: &["this"],
        base_receivers: &["super"],
        class_names: &[],
        module_path_heads: &[],
        package_stems: &[],
        inherited_constructors: false,
        directory_is_package: true,
        builtins: &[
            "System",
            "Math",
            "String",
            "Integer",
            "Long",
            "Double",
            "Float",
            "Boolean",
            "Character",
            "Objects",
            "Arrays",
            "Collections",
            "List",
            "Map",
            "Set",
            "Optional",
            "Thread",
            "StringBuilder",
            "Object",
        ],
        string_type: Some("String"),
        builtin_types: &["String", "StringBuilder"],
        call_method: None,
        test_files: &["*Test.java", "*Tests.java", "*IT.java", "Test*.java"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "c",
        extensions: &["c", "h"],
        grammar: || tree_sitter_c::LANGUAGE.into(),
        query_sources: &[C_QUERY],
        locals_sources: &[C_LOCALS],
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::CInclude,
        builtins: C_BUILTINS,
        defined_in: &["c", "cpp"],
        fields_are_pointers: true,
        blank_identifiers: C_ATTRIBUTE_MACROS,
        includes_are_transitive: true,
        fallback: Some("cpp"),
        fallback_markers: &[
            "namespace ",
            "template<",
            "template <",
            "class ",
            "public:",
            "private:",
            "protected:",
            "using namespace ",
        ],
        test_files: &["*_unittest.c"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "cpp",
        extensions: &[
            "cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp",
        ],
        grammar: || tree_sitter_cpp::LANGUAGE.into(),
        query_sources: &[CPP_QUERY],
        locals_sources: &[CPP_LOCALS],
        separator: "::",
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::CInclude,
        wrapper_kinds: &["template_declaration"],
        constructors: &["$class"],
        implicit_this: true,
        self_receivers: &["this"],
        builtins: CPP_BUILTINS,
        defined_in: &["cpp", "c"],
        blank_identifiers: C_ATTRIBUTE_MACROS,
        includes_are_transitive: true,
        test_files: &["*_unittest.cc", "*_unittest.cpp"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "csharp",
        extensions: &["cs"],
        grammar: || tree_sitter_c_sharp::LANGUAGE.into(),
        query_sources: &[CSHARP_QUERY],
        locals_sources: &[CSHARP_LOCALS],
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::CSharpNamespace,
        doc_skip_kinds: &["attribute_list"],
        constructors: &["$class"],
        implicit_this: true,
        self_receivers: &["this"],
        base_receivers: &["base"],
        directory_is_package: true,
        builtins: &[
            "Console",
            "Math",
            "String",
            "Convert",
            "Enumerable",
            "Task",
            "List",
            "Dictionary",
            "Array",
            "Guid",
            "DateTime",
            "TimeSpan",
            "Environment",
            "Path",
            "File",
            "Directory",
            "Object",
            "Exception",
            "ArgumentException",
            "ArgumentNullException",
            "InvalidOperationException",
            "NotImplementedException",
            "StringBuilder",
            "nameof",
        ],
        string_type: Some("String"),
        builtin_types: &["String", "List", "Dictionary", "StringBuilder"],
        test_files: &["*Test.cs", "*Tests.cs"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "ruby",
        extensions: &["rb", "rake", "gemspec"],
        grammar: || tree_sitter_ruby::LANGUAGE.into(),
        query_sources: &[RUBY_QUERY],
        locals_sources: &[RUBY_LOCALS],
        separator: "::",
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::RubyRequire,
        comment_kinds: &["comment"],
        constructors: &["initialize"],
        implicit_this: true,
        self_receivers: &["self"],
        base_receivers: &["super"],
        class_names: &["new"],
        inherited_constructors: true,
        builtins: &[
            "puts",
            "print",
            "p",
            "pp",
            "require",
            "require_relative",
            "raise",
            "fail",
            "loop",
            "lambda",
            "proc",
            "format",
            "sprintf",
            "printf",
            "gets",
            "sleep",
            "rand",
            "srand",
            "catch",
            "throw",
            "block_given?",
            "binding",
            "caller",
            "exit",
            "abort",
            "at_exit",
            "Integer",
            "Float",
            "String",
            "Array",
            "Hash",
            "Rational",
            "Complex",
            "freeze",
            "attr_reader",
            "attr_writer",
            "attr_accessor",
            "include",
            "extend",
            "prepend",
            "define_method",
            "instance_variable_get",
            "instance_variable_set",
            "send",
            "autoload",
            "alias_method",
            "private_constant",
            "module_function",
            "public_send",
            "respond_to?",
            "is_a?",
            "kind_of?",
            "nil?",
            "then",
            "tap",
            "dup",
            "clone",
            "to_s",
            "inspect",
            "hash",
            "class",
            "object_id",
            "warn",
            "Kernel",
            "Math",
            "File",
            "Dir",
            "IO",
            "Time",
            "Struct",
            "Comparable",
            "Enumerable",
            "ObjectSpace",
            "StandardError",
            "ArgumentError",
            "RuntimeError",
            "NotImplementedError",
        ],
        string_type: Some("String"),
        builtin_types: &["String", "Array", "Hash", "Integer", "Float"],
        test_files: &["*_spec.rb"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "php",
        extensions: &["php", "phtml", "php8", "inc"],
        grammar: || tree_sitter_php::LANGUAGE_PHP.into(),
        query_sources: &[PHP_QUERY],
        locals_sources: &[PHP_LOCALS],
        separator: "\\",
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::PhpComposer,
        constructors: &["__construct"],
        self_receivers: &["$this", "self", "static"],
        base_receivers: &["parent"],
        class_names: &["static", "self"],
        inherited_constructors: true,
        builtins: &[
            "array_map",
            "array_filter",
            "array_keys",
            "array_values",
            "array_merge",
            "array_sum",
            "array_key_exists",
            "in_array",
            "count",
            "strlen",
            "str_replace",
            "substr",
            "strpos",
            "sprintf",
            "printf",
            "implode",
            "explode",
            "trim",
            "json_encode",
            "json_decode",
            "isset",
            "unset",
            "empty",
            "is_array",
            "is_string",
            "is_int",
            "is_null",
            "var_dump",
            "print_r",
            "echo",
            "define",
            "defined",
            "function_exists",
            "class_exists",
            "method_exists",
            "call_user_func",
            "func_get_args",
            "compact",
            "extract",
            "preg_match",
            "preg_replace",
            "htmlspecialchars",
            "file_get_contents",
            "file_put_contents",
            "dirname",
            "basename",
            "date",
            "time",
            "microtime",
            "max",
            "min",
            "abs",
            "intval",
            "floatval",
            "strval",
            "array_push",
            "array_pop",
            "sort",
            "usort",
            "ksort",
            "range",
            "Exception",
            "InvalidArgumentException",
            "RuntimeException",
            "DateTime",
            "ArrayObject",
            "stdClass",
        ],
        test_files: &["*Test.php"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "kotlin",
        extensions: &["kt", "kts"],
        grammar: || tree_sitter_kotlin_ng::LANGUAGE.into(),
        query_sources: &[KOTLIN_QUERY],
        locals_sources: &[KOTLIN_LOCALS],
        import_resolution: ImportResolution::JvmClass(&["kt", "kts", "java"]),
        comment_kinds: &["line_comment", "block_comment"],
        doc_skip_kinds: &["annotation"],
        constructors: &["$class"],
        implicit_this: true,
        self_receivers: &["this"],
        base_receivers: &["super"],
        directory_is_package: true,
        builtins: &[
            "println",
            "print",
            "listOf",
            "mutableListOf",
            "setOf",
            "mutableSetOf",
            "mapOf",
            "mutableMapOf",
            "arrayOf",
            "emptyList",
            "emptyMap",
            "require",
            "requireNotNull",
            "check",
            "checkNotNull",
            "error",
            "lazy",
            "run",
            "let",
            "also",
            "apply",
            "with",
            "repeat",
            "TODO",
            "maxOf",
            "minOf",
            "String",
            "Int",
            "Long",
            "Pair",
            "Triple",
            "StringBuilder",
            "Exception",
            "IllegalArgumentException",
            "IllegalStateException",
        ],
        string_type: Some("String"),
        builtin_types: &["String", "StringBuilder"],
        test_files: &["*Test.kt", "*Tests.kt"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "swift",
        extensions: &["swift"],
        grammar: || tree_sitter_swift::LANGUAGE.into(),
        query_sources: &[SWIFT_QUERY],
        locals_sources: &[SWIFT_LOCALS],
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::SwiftModule,
        comment_kinds: &["comment", "multiline_comment"],
        constructors: &["init"],
        implicit_this: true,
        self_receivers: &["self", "Self"],
        base_receivers: &["super"],
        class_names: &["Self"],
        directory_is_package: true,
        builtins: &[
            "print",
            "debugPrint",
            "fatalError",
            "precondition",
            "preconditionFailure",
            "assert",
            "assertionFailure",
            "min",
            "max",
            "abs",
            "zip",
            "stride",
            "type",
            "String",
            "Int",
            "Double",
            "Float",
            "Bool",
            "Array",
            "Dictionary",
            "Set",
            "Character",
            "Optional",
            "Result",
            "DispatchQueue",
        ],
        string_type: Some("String"),
        builtin_types: &["String", "Array", "Dictionary", "Set"],
        test_files: &["*Tests.swift", "*Test.swift"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "scala",
        extensions: &["scala", "sc"],
        grammar: || tree_sitter_scala::LANGUAGE.into(),
        query_sources: &[SCALA_QUERY],
        locals_sources: &[SCALA_LOCALS],
        import_resolution: ImportResolution::JvmClass(&["scala", "java"]),
        constructors: &["apply"],
        implicit_this: true,
        self_receivers: &["this"],
        base_receivers: &["super"],
        directory_is_package: true,
        builtins: &[
            "println",
            "print",
            "require",
            "assert",
            "List",
            "Seq",
            "Vector",
            "Map",
            "Set",
            "Some",
            "None",
            "Option",
            "Right",
            "Left",
            "Future",
            "Array",
            "String",
            "StringBuilder",
            "Exception",
            "IllegalArgumentException",
        ],
        string_type: Some("String"),
        builtin_types: &["String", "List", "Seq", "Vector", "Map", "Set"],
        test_files: &["*Test.scala", "*Spec.scala", "*Suite.scala"],
        ..DEFAULTS
    },
    LanguageSpec {
        name: "bash",
        extensions: &["sh", "bash"],
        grammar: || tree_sitter_bash::LANGUAGE.into(),
        query_sources: &[BASH_QUERY],
        locals_sources: &[BASH_LOCALS],
        module_naming: ModuleNaming::Global,
        import_resolution: ImportResolution::ShellSource,
        comment_kinds: &["comment"],
        builtins: &[
            "echo", "printf", "read", "cd", "pwd", "exit", "return", "export", "local", "declare",
            "readonly", "unset", "shift", "set", "trap", "eval", "exec", "test", "[", "[[", "true",
            "false", "wait", "kill", "command", "type", "hash", "alias", "getopts", "let",
            "mapfile", "pushd", "popd", "source", ".",
        ],
        commands_are_external: true,
        ..DEFAULTS
    },
    LanguageSpec {
        name: "lua",
        extensions: &["lua"],
        grammar: || tree_sitter_lua::LANGUAGE.into(),
        query_sources: &[LUA_QUERY],
        locals_sources: &[LUA_LOCALS],
        module_naming: ModuleNaming::Dotted,
        import_resolution: ImportResolution::LuaModule,
        comment_kinds: &["comment"],
        self_receivers: &["self"],
        package_stems: &["init"],
        builtins: &[
            "print",
            "pairs",
            "ipairs",
            "next",
            "type",
            "tostring",
            "tonumber",
            "error",
            "assert",
            "pcall",
            "xpcall",
            "select",
            "setmetatable",
            "getmetatable",
            "rawget",
            "rawset",
            "rawequal",
            "rawlen",
            "require",
            "unpack",
            "load",
            "loadfile",
            "dofile",
            "collectgarbage",
            "string",
            "table",
            "math",
            "io",
            "os",
            "coroutine",
            "debug",
            "utf8",
        ],
        string_type: Some("string"),
        test_files: &["*_spec.lua"],
        ..DEFAULTS
    },
];

/// The language of a path, by extension.
pub fn for_path(path: &str) -> Option<&'static LanguageSpec> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES
        .iter()
        .find(|l| l.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// A language by its stored name.
pub fn by_name(name: &str) -> Option<&'static LanguageSpec> {
    LANGUAGES.iter().find(|l| l.name == name)
}

/// The module path of a file, the prefix of its qualified names, unless the
/// file declares a package (`@package`), which takes precedence.
pub fn module_path(spec: &LanguageSpec, rel_path: &str) -> String {
    module_path_in(spec, rel_path, None)
}

/// The crate name a stored module path starts with (`evident_index` in
/// `evident_index::store`), for languages whose module paths carry one.
pub fn crate_name_of_module<'m>(spec: &LanguageSpec, module: &'m str) -> Option<&'m str> {
    match spec.module_naming {
        ModuleNaming::RustCrate => module
            .split(spec.separator)
            .next()
            .filter(|c| *c != "crate"),
        _ => None,
    }
}

/// [`module_path`], with the name of the Rust crate the file belongs to (from
/// its `Cargo.toml`) in place of `crate`, so two crates' modules differ.
pub fn module_path_in(spec: &LanguageSpec, rel_path: &str, crate_name: Option<&str>) -> String {
    let stem = rel_path.rsplit_once('.').map_or(rel_path, |(stem, _)| stem);
    match spec.module_naming {
        ModuleNaming::Dotted => {
            let dotted = stem.replace('/', ".");
            for package in spec.package_stems {
                if dotted == *package {
                    return String::new();
                }
                if let Some(dir) = dotted.strip_suffix(&format!(".{package}")) {
                    return dir.to_string();
                }
            }
            dotted
        }
        ModuleNaming::RustCrate => {
            let parts: Vec<&str> = stem.split('/').collect();
            // Cargo's layout: `src/` holds the crate's modules; each file directly
            // in `tests/`, `benches/` or `examples/` is a crate root of its own.
            let root = parts
                .iter()
                .rposition(|p| matches!(*p, "src" | "tests" | "benches" | "examples"));
            let mut segments: Vec<&str> = match root {
                Some(i) if parts[i] != "src" && parts.len() == i + 2 => Vec::new(),
                Some(i) => parts[i + 1..].to_vec(),
                None => parts.clone(),
            };
            if matches!(segments.last(), Some(&"lib") | Some(&"main") | Some(&"mod")) {
                segments.pop();
            }
            std::iter::once(crate_name.unwrap_or("crate"))
                .chain(segments)
                .collect::<Vec<_>>()
                .join("::")
        }
        ModuleNaming::Path => stem.to_string(),
        ModuleNaming::Global => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        let mut errors = Vec::new();
        for spec in LANGUAGES {
            for (what, sources) in [
                ("query", spec.query_sources),
                ("locals", spec.locals_sources),
            ] {
                if let Err(e) = Query::new(&spec.grammar(), &sources.concat()) {
                    errors.push(format!("{} {what}: {e}", spec.name));
                }
            }
        }
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn module_paths_follow_each_convention() {
        let py = by_name("python").unwrap();
        assert_eq!(module_path(py, "pkg/mod.py"), "pkg.mod");
        assert_eq!(module_path(py, "pkg/__init__.py"), "pkg");
        assert_eq!(module_path(py, "__init__.py"), "");
        let rs = by_name("rust").unwrap();
        assert_eq!(module_path(rs, "crates/x/src/lib.rs"), "crate");
        assert_eq!(module_path(rs, "crates/x/src/a/mod.rs"), "crate::a");
        assert_eq!(module_path(rs, "src/a/b.rs"), "crate::a::b");
        assert_eq!(module_path(rs, "crates/x/tests/indexing.rs"), "crate");
        assert_eq!(
            module_path(rs, "crates/x/tests/common/mod.rs"),
            "crate::common"
        );
        assert_eq!(module_path(rs, "examples/demo.rs"), "crate");
        let ts = by_name("typescript").unwrap();
        assert_eq!(module_path(ts, "src/util/math.ts"), "src/util/math");
    }

    #[test]
    fn extensions_pick_languages() {
        assert_eq!(for_path("a/b.tsx").unwrap().name, "tsx");
        assert_eq!(for_path("a/B.JAVA").unwrap().name, "java");
        assert!(for_path("Makefile").is_none());
    }
}
