//! The shape of a row of the language table, and the values a row leaves
//! unsaid.

use tree_sitter::Language as Grammar;

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
    pub(in crate::lang) grammar: fn() -> Grammar,
    pub(in crate::lang) query_sources: &'static [&'static str],
    /// Parameters and locals for `def` (`*-locals.scm`, see `locals.rs`).
    pub(in crate::lang) locals_sources: &'static [&'static str],
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
    /// A file belongs to the package it declares (`package a.b`, `namespace
    /// A.B`), wherever it lies: imports and the package scope find it by
    /// that declaration when its directory does not spell the name (Java,
    /// Kotlin, Scala, C#; not Go, whose package is its directory).
    pub package_by_declaration: bool,
    /// Names the language itself provides (functions, types, global objects):
    /// a call through one, when nothing in the repository has the name, is a
    /// `builtin` target.
    pub builtins: Words,
    /// The type of a string literal, whose methods are builtins (`", ".join`).
    pub string_type: Option<&'static str>,
    /// Builtins that are plain data types: a value of one (a literal, a call
    /// of it, a declared type) has builtin methods. Other builtins' results
    /// (`type(...)`, `getattr(...)`, `super()`) may be the repository's own.
    pub builtin_types: &'static [&'static str],
    /// Generic types that describe a function, whose arguments are its
    /// parameters' and result's types, never the value's own: a value
    /// declared `Callable[..., Flask]` is no `Flask`.
    pub function_types: &'static [&'static str],
    /// The method that calling an instance runs (Python's `__call__`).
    pub call_method: Option<&'static str>,
    /// Languages whose definitions a declaration of this one may name (a C
    /// header's prototype, defined in a `.c` or `.cpp` file).
    pub defined_in: &'static [&'static str],
    /// A call through a field (`p->handler()`) is a function pointer: the
    /// language has no methods, so nothing is guessed by name (C).
    pub fields_are_pointers: bool,
    /// A class declares its fields in its body: `this.x = ...` in a method
    /// assigns one and never declares it, so `def` at `this.x` prefers a
    /// declaration in any class of the hierarchy to the assignments.
    pub fields_declared: bool,
    /// A bare call nothing in the repository defines is an external program
    /// (Bash commands: `git`, `grep`).
    pub commands_are_external: bool,
    /// Identifiers the parser is not shown (blanked to spaces): attribute
    /// macros that expand to nothing it needs (`__init`, `__user`), which a
    /// parser without the preprocessor takes for syntax errors.
    pub blank_identifiers: &'static [&'static str],
    /// A line that starts (after indentation) with one of these bytes begins
    /// a new member, never the previous line's continuation (TypeScript reads
    /// no type arguments after a line break: `): T` then `<U>(x: U): U` are
    /// two call signatures). The parser is shown a `;` before it.
    pub lines_start_members: &'static [u8],
    /// A file with a line that opens with one of these keywords is a module;
    /// the top-level declarations of any other file (a script) are global,
    /// seen by every file of the language (TypeScript's `declare const
    /// __DEV__: boolean` in a `.d.ts`). Empty: no file is a script.
    pub module_keywords: &'static [&'static str],
    /// Names a module has for itself, where nothing else binds them
    /// (CommonJS's `exports`): `def` on one answers with the file.
    pub module_self_names: &'static [&'static str],
    /// A function outside any class is a class when run with `new`: a
    /// self receiver in its body is its instance (`function Foo() {
    /// this.bar = 5 }`, JavaScript before `class`).
    pub function_constructors: bool,
    /// Glob imports are textual inclusion: a file sees every top-level name
    /// of every file its includes reach, however deep (C's `#include`).
    pub includes_are_transitive: bool,
    /// A glob import of a module that lists no exports leaves out the
    /// names that start with `_` (Python's `from m import *`).
    pub glob_leaves_private: bool,
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

/// Names kept in a data file, one per line; a line starting with `#` is a
/// comment.
#[derive(Debug, Clone, Copy)]
pub struct Words(&'static str);

impl Words {
    pub const EMPTY: Words = Words("");

    pub const fn new(text: &'static str) -> Words {
        Words(text)
    }

    pub fn contains(&self, word: &str) -> bool {
        self.iter().any(|w| w == word)
    }

    pub fn iter(&self) -> impl Iterator<Item = &'static str> {
        self.0
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
    }
}

pub(in crate::lang) const C_STYLE_COMMENTS: &[&str] = &["comment"];

fn no_grammar() -> Grammar {
    unreachable!("every row of LANGUAGES names its grammar")
}

/// The values a row leaves unsaid: a language without classes, imports
/// or builtins of note. Each row sets what its language has.
pub(in crate::lang) const DEFAULTS: LanguageSpec = LanguageSpec {
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
    package_by_declaration: false,
    builtins: Words::EMPTY,
    string_type: None,
    builtin_types: &[],
    function_types: &[],
    call_method: None,
    defined_in: &[],
    fields_are_pointers: false,
    fields_declared: false,
    commands_are_external: false,
    blank_identifiers: &[],
    lines_start_members: &[],
    module_keywords: &[],
    module_self_names: &[],
    function_constructors: false,
    includes_are_transitive: false,
    glob_leaves_private: false,
    fallback: None,
    fallback_markers: &[],
    test_files: &[],
    interface_files: &[],
};
