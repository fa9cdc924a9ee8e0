//! Call resolution: which definition(s) each stored call site calls, with a
//! confidence, across files and for every indexed language.
//!
//! The rules are language-neutral and read the language table for the few
//! differences (separator, what `import a.b` binds, constructor names,
//! implicit `this`). In order:
//! 1. a bare name: nested and enclosing definitions, the file's top level,
//!    imported bindings (aliases and re-exports followed), the enclosing class
//!    when the language has an implicit `this`; a class found this way means
//!    its constructor;
//! 2. `self.m` / `this.m` / `cls.m`: the enclosing class, then its bases;
//! 3. `x.m` / `x::m`: `x` as an imported module, package or file (Rust
//!    `crate::`/`super::`/`self::` too), or as a class or type with method `m`;
//! 4. otherwise, by name alone when few definitions carry that name.
//!
//! `exact` edges come from scopes and imports, `inferred` ones from a guess at
//! a receiver's type (base classes, another file's `impl`), `name_only` from the
//! name alone. Unresolved calls keep no edge but stay in `calls`.

use std::collections::{HashMap, HashSet};

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use rusqlite::Connection;

use crate::error::Result;
use crate::evidence::Kind;
use crate::lang::extract::Binding;
use crate::lang::imports::Resolver;
use crate::lang::{self, LanguageSpec};
use crate::store::graph as rows;

mod flow;
mod hierarchy;
mod table;

pub(crate) use table::Loading;
use table::{Symbol, Table};

/// Above this many same-named definitions a name-only guess is no evidence.
const NAME_ONLY_MAX: usize = 6;
/// Re-export chains (`__init__.py`, `index.ts`, `mod.rs`) followed at most this deep.
const MAX_REEXPORT_DEPTH: usize = 4;
/// A name bound more often than this in one scope is followed no further.
const MAX_BINDINGS: usize = 8;
/// A container with more elements than this is followed no further (a
/// dispatch table has more entries than a name has bindings).
const MAX_ELEMENTS: usize = 64;
/// Class hierarchies followed at most this deep to a base outside the repository.
const MAX_BASE_DEPTH: usize = 8;
/// Above this many subclass definitions a `self.m()` names no one of them.
const MAX_OVERRIDES: usize = 10;
/// A function called more often than this in its file binds its parameters
/// to nothing (argument flow would cost more than it tells).
const MAX_ARGUMENT_SITES: usize = 16;
/// Bindings followed at most this deep (an alias of a call's result of ...).
const MAX_FLOW_DEPTH: usize = 6;

/// A file's bindings: enclosing definition → name → each binding's stored
/// form ([`Binding::encode`]); a name bound in two branches has two.
type FileBindings = FxHashMap<Option<i64>, FxHashMap<String, Vec<Rc<str>>>>;

/// A class's attributes: name → its bindings, each with where it is evaluated.
type Attributes = FxHashMap<String, Vec<BindingSite>>;

/// An evaluation remembered for one file's calls, with the functions whose
/// parameters it used.
type Remembered = (Vec<Value>, Vec<Rc<str>>);

/// A parameter of a function: `(function, name)`.
type ParameterKey = (i64, Box<str>);

/// An expression in a scope: `(file, scope, text)`.
type ExprKey = (i64, Option<i64>, Box<str>);

/// A stored binding with where it is evaluated: `(file, scope, stored value)`.
pub(crate) type BindingSite = (i64, Option<i64>, String);

/// What a name or an expression holds, as far as the types that flow tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    /// The class itself (`Widget`, `W = Widget`): calling it constructs one.
    Class(i64),
    /// An instance of the class: attributes and methods are looked up on it.
    Instance(i64),
    /// A function or method (or anything else callable that was defined).
    Callable(i64),
    /// Something from outside the repository, by how it is reached
    /// (`io.StringIO()`, `requests.get().json`, a `list` literal): its
    /// attributes and what calling it gives are outside too. An index into
    /// [`Graph::outside_values`].
    Outside(u32),
}

/// The names of [`Value::Outside`] values met in a pass, each with its kind
/// (`external` or `builtin`), interned so that values stay `Copy`.
#[derive(Default)]
struct OutsideValues {
    names: Vec<(Rc<str>, &'static str)>,
    ids: FxHashMap<(Rc<str>, &'static str), u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Confidence {
    Exact,
    Inferred,
    NameOnly,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Exact => "exact",
            Confidence::Inferred => "inferred",
            Confidence::NameOnly => "name_only",
        }
    }
}

/// One resolution pass: the symbol table and what the pass learned.
pub(crate) struct Graph<'r> {
    resolver: &'r Resolver,
    table: Table<'r>,
    conn: &'r Connection,
    /// File → its bindings, read from the index when first needed (a pass
    /// that resolves a few calls reads a few files'): see [`FileBindings`].
    file_bindings: std::cell::RefCell<FxHashMap<i64, Rc<FileBindings>>>,
    /// Class → attribute → bindings and the scope each is evaluated in:
    /// `self.x = ...` in any method, and the class body's own names; built
    /// from the class's file when first needed.
    attributes: std::cell::RefCell<FxHashMap<i64, Rc<Attributes>>>,
    /// Each class's bases and subclasses in the repository, once found.
    base_lists: std::cell::RefCell<FxHashMap<i64, Rc<[i64]>>>,
    subclass_lists: std::cell::RefCell<FxHashMap<i64, Rc<[i64]>>>,
    /// Files whose classes' attributes are in `attributes`.
    attribute_files: std::cell::RefCell<FxHashSet<i64>>,
    /// The first error reading bindings lazily; the pass reports it.
    read_error: std::cell::RefCell<Option<crate::error::Error>>,
    /// How deep the evaluation of bindings is nested (aliases of aliases,
    /// returns of returns); past [`MAX_FLOW_DEPTH`] nothing more is learned.
    flow_depth: std::cell::Cell<usize>,
    /// Base name (its last identifier) → the classes that name it, built on first use.
    subclasses: std::cell::OnceCell<FxHashMap<Rc<str>, Vec<i64>>>,
    /// While set, a class resolves to itself, not to its constructor.
    classes_as_written: std::cell::Cell<bool>,
    /// Set as a call is answered by what a local name or a parameter holds
    /// (see [`Graph::resolve`]): decorators are not applied again to that.
    held_by_local: std::cell::Cell<bool>,
    /// Set when an evaluation was cut (the depth limit, or a cycle): what it
    /// computed is partial and is not remembered.
    truncated: std::cell::Cell<bool>,
    /// Expressions being evaluated: meeting one again is a cycle.
    in_progress: std::cell::RefCell<FxHashSet<ExprKey>>,
    /// Complete evaluations, by expression and by function's returns: a pass
    /// meets the same receivers and calls many times.
    expr_cache: std::cell::RefCell<FxHashMap<ExprKey, Vec<Value>>>,
    returns_cache: std::cell::RefCell<FxHashMap<i64, Vec<Value>>>,
    linearizations: std::cell::RefCell<FxHashMap<i64, Vec<i64>>>,
    /// The last file's include closure (`include_closure`): calls are
    /// resolved file by file.
    include_closure: std::cell::RefCell<Option<(i64, Rc<FxHashSet<i64>>)>>,
    /// Classes whose linearization is being computed: resolving a base
    /// (`Rack::Base`) may come back to the same class.
    linearizing: std::cell::RefCell<FxHashSet<i64>>,
    /// How deep constructor lookups are nested (`a = b.X(); b = a.Y()` must end).
    constructor_depth: std::cell::Cell<usize>,
    /// Each class's first base outside the repository, once looked up: every
    /// unresolved `self.m()` in a class asks the same question.
    outside_bases: std::cell::RefCell<FxHashMap<i64, Option<String>>>,
    outside_values: std::cell::RefCell<OutsideValues>,
    /// The file of the call being resolved: argument flow only feeds calls
    /// in the file of the function whose parameter it binds.
    consumer_file: std::cell::Cell<Option<i64>>,
    /// Set while resolving a call that may bind a parameter: argument flow
    /// goes one level deep.
    resolving_site: std::cell::Cell<bool>,
    /// Set while an evaluation depends on the file of the call being
    /// resolved (argument flow): it is remembered for that file only.
    consumer_bound: std::cell::Cell<bool>,
    /// The functions whose parameters the call being resolved used.
    arguments_used: std::cell::RefCell<Vec<Rc<str>>>,
    /// Evaluations that hold for the current call's file only.
    local_expr_cache: std::cell::RefCell<FxHashMap<ExprKey, Remembered>>,
    local_returns_cache: std::cell::RefCell<FxHashMap<i64, Remembered>>,
    /// `(function, parameter)` → what its calls in its file pass (the same
    /// for every call of that file).
    argument_cache: std::cell::RefCell<FxHashMap<ParameterKey, Vec<Value>>>,
    /// Function → the calls of its file that may bind its parameters.
    site_cache: std::cell::RefCell<FxHashMap<i64, Rc<Vec<rows::ArgumentSite>>>>,
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

impl<'r> Graph<'r> {
    pub(crate) fn load(
        conn: &'r Connection,
        resolver: &'r Resolver,
        loading: Loading,
    ) -> Result<Graph<'r>> {
        Ok(Graph {
            resolver,
            table: Table::load(conn, loading)?,
            conn,
            file_bindings: Default::default(),
            attributes: Default::default(),
            attribute_files: Default::default(),
            base_lists: Default::default(),
            subclass_lists: Default::default(),
            read_error: Default::default(),
            flow_depth: std::cell::Cell::new(0),
            subclasses: std::cell::OnceCell::new(),
            classes_as_written: std::cell::Cell::new(false),
            held_by_local: std::cell::Cell::new(false),
            truncated: std::cell::Cell::new(false),
            in_progress: Default::default(),
            expr_cache: Default::default(),
            returns_cache: Default::default(),
            linearizations: Default::default(),
            linearizing: Default::default(),
            include_closure: Default::default(),
            constructor_depth: std::cell::Cell::new(0),
            outside_bases: Default::default(),
            outside_values: Default::default(),
            consumer_file: Default::default(),
            resolving_site: Default::default(),
            consumer_bound: Default::default(),
            arguments_used: Default::default(),
            local_expr_cache: Default::default(),
            local_returns_cache: Default::default(),
            argument_cache: Default::default(),
            site_cache: Default::default(),
        })
    }

    /// The first error met while reading the index lazily, if any.
    pub(crate) fn take_read_error(&self) -> Option<crate::error::Error> {
        let own = self.read_error.borrow_mut().take();
        own.or_else(|| self.table.read_error.borrow_mut().take())
    }

    fn symbol(&self, id: i64) -> Option<&Symbol> {
        self.table.symbol(id)
    }

    fn child(&self, parent: i64, name: &str) -> Option<&[i64]> {
        self.table.child(parent, name)
    }

    fn top(&self, file: i64, name: &str) -> Option<&[i64]> {
        self.table.top(file, name)
    }

    fn owned(&self, owner: &str, name: &str) -> Option<&[i64]> {
        self.table.owned(owner, name)
    }

    fn owner_from_qualified(&self, s: &Symbol) -> Option<String> {
        self.table.owner_from_qualified(s)
    }

    fn lang_of(&self, file: i64) -> Option<&'static LanguageSpec> {
        self.table.files.get(&file).map(|f| f.lang)
    }

    /// The language family of a file: languages that resolve imports alike
    /// see each other's definitions (C with C++, a `.h` being either; JS
    /// with TS; the JVM's languages). Guesses never cross families.
    fn family(&self, file: i64) -> Option<std::mem::Discriminant<lang::ImportResolution>> {
        self.lang_of(file)
            .map(|l| std::mem::discriminant(&l.import_resolution))
    }

    /// Whether the definition `id` is of the family `family`.
    fn of_family(
        &self,
        id: i64,
        family: Option<std::mem::Discriminant<lang::ImportResolution>>,
    ) -> bool {
        family.is_none() || self.symbol(id).and_then(|s| self.family(s.file)) == family
    }

    /// The class a method belongs to, by nesting or (Rust, Go) by qualified name.
    fn owner_class(&self, enclosing: Option<i64>) -> Option<(Option<i64>, String)> {
        let mut at = enclosing;
        while let Some(id) = at {
            let s = self.symbol(id)?;
            if s.kind.is_class_like() {
                return Some((Some(id), s.name.to_string()));
            }
            if s.kind == Kind::Method && s.qualified_name.is_some() {
                return self.owner_from_qualified(s).map(|o| (None, o));
            }
            at = s.parent;
        }
        None
    }

    /// Whether `target` is the module `name` itself (`from pkg import mod` → `pkg/mod.py`).
    fn is_module_named(&self, target: &str, name: &str) -> bool {
        let file_name = target.rsplit('/').next().unwrap_or(target);
        let stem = file_name.split('.').next().unwrap_or(file_name);
        if stem == name {
            return true;
        }
        let is_package_file =
            lang::for_path(file_name).is_some_and(|spec| spec.package_stems.contains(&stem));
        is_package_file && parent_dir(target).rsplit('/').next() == Some(name)
            || !self.table.file_by_path.contains_key(target)
                && target.rsplit('/').next() == Some(name)
    }

    /// Where a call nothing in the repository answers goes outside it:
    /// `("os.path.join", "external")` through an import that no repository
    /// file satisfies, `("unittest.TestCase.assertEqual", "external")` for a
    /// method of `self` inherited from a base outside the repository, or
    /// `("len", "builtin")`. `None`: nothing is known.
    pub(crate) fn outside(
        &self,
        file: i64,
        enclosing: Option<i64>,
        callee: &str,
    ) -> Option<(String, &'static str)> {
        let lang = self.lang_of(file)?;
        let callee = callee.trim().trim_start_matches("new ").trim();
        if callee.ends_with(')') && !callee.starts_with('(') {
            // `functools.wraps(f)` applied: a call of an outside value.
            let values = self.values_of_expr(file, enclosing, callee);
            if !self.all_lead_outside(&values) {
                return None;
            }
            // Only outside values proper name the result (an instance of a
            // class with an outside base does not), whatever their order.
            let outside: Vec<Value> = values
                .into_iter()
                .filter(|v| matches!(v, Value::Outside(_)))
                .collect();
            return self
                .first_outside_name(&outside)
                .map(|(name, kind)| (name.to_string(), kind));
        }
        if callee.contains(['(', '[']) {
            // `super().m`: a method of the class's first base outside the repository.
            let head = callee.split('(').next().unwrap_or("").trim();
            let method = callee.rsplit_once(").").map(|(_, m)| m);
            return match method {
                Some(m) if lang.base_receivers.contains(&head) && !m.contains(['(', '[', '.']) => {
                    self.outside_method(enclosing, m)
                }
                // A chained call: `requests.get(url).json()`.
                _ => self.method_of_outside_value(file, enclosing, callee),
            };
        }
        let normalized = callee.replace("::", ".").replace("?.", ".");
        let segments: Vec<&str> = normalized.split('.').filter(|s| !s.is_empty()).collect();
        let (&head, rest) = segments.split_first()?;
        if let Some(name) = self.imported_from_outside(file, &segments) {
            return Some((name, "external"));
        }
        if rest.len() == 1 && lang.self_receivers.contains(&head) {
            return self.outside_method(enclosing, rest[0]);
        }
        if let Some(found) = self.method_of_outside_value(file, enclosing, callee) {
            return Some(found);
        }
        // Resolution found no definition of the name in scope, imported, or
        // (few enough to guess) anywhere: unless a local rebinds it, it is the language's.
        if lang.builtins.contains(&head) && self.bindings(file, enclosing, head).is_empty() {
            return Some((segments.join(lang.separator), "builtin"));
        }
        if rest.is_empty() && self.bindings(file, enclosing, head).is_empty() {
            if let Some(found) = self.glob_outside_answering(file, head) {
                return Some((found, "external"));
            }
        }
        // A shell command no function of the repository answers: a program.
        (lang.commands_are_external && rest.is_empty()).then(|| (head.to_string(), "external"))
    }

    /// A bare name no definition of the caller's language family has, in a
    /// file that imports everything of a module outside the repository
    /// (`#include <Python.h>`, `from os.path import *`): that module's. Named
    /// `module.name` when there is one such import, else by the name alone.
    fn glob_outside_answering(&self, file: i64, name: &str) -> Option<String> {
        let lang = self.lang_of(file)?;
        let outside: Vec<&table::Import> = self
            .table
            .imports_of(file)
            .iter()
            .filter(|i| i.target.is_none() && i.name.as_deref() == Some("*"))
            .collect();
        if outside.is_empty() {
            return None;
        }
        let family = self.family(file);
        let defined_here = self
            .table
            .named(name)
            .iter()
            .any(|id| self.of_family(*id, family));
        if defined_here {
            return None;
        }
        Some(match outside.as_slice() {
            [one] => {
                let module = one.module.trim_matches(['<', '>']);
                format!("{module}{}{name}", lang.separator)
            }
            _ => name.to_string(),
        })
    }

    /// A class's first base outside the repository, looked up once per pass.
    fn outside_base_cached(&self, class: i64) -> Option<String> {
        let cached = self.outside_bases.borrow().get(&class).cloned();
        match cached {
            Some(base) => base,
            None => {
                let base = self.outside_base(class, 0);
                self.outside_bases.borrow_mut().insert(class, base.clone());
                base
            }
        }
    }

    /// Method `method` of the enclosing class's first base outside the repository.
    fn outside_method(
        &self,
        enclosing: Option<i64>,
        method: &str,
    ) -> Option<(String, &'static str)> {
        let (class, _) = self.owner_class(enclosing)?;
        let class = class?;
        let lang = self.lang_of(self.symbol(class)?.file)?;
        // A mixin with no such base of its own gets it from the classes that
        // use it: the first subclass (breadth first) with a base outside.
        let base = self.outside_base_cached(class).or_else(|| {
            let mut found = None;
            self.walk_subclasses(class, |sub| match self.outside_base_cached(sub) {
                Some(base) => {
                    found = Some(base);
                    hierarchy::Below::Stop
                }
                None => hierarchy::Below::Descend,
            });
            found
        })?;
        Some((format!("{base}{}{method}", lang.separator), "external"))
    }

    /// `segments` (`head`, then attributes) when `head` is bound by an import
    /// that no repository file satisfies: the import's full name, then the rest.
    fn imported_from_outside(&self, file: i64, segments: &[&str]) -> Option<String> {
        let lang = self.lang_of(file)?;
        let (head, rest) = segments.split_first()?;
        let import = self.table.imports_of(file).iter().find(|i| {
            i.target.is_none() && i.binding() == Some(head) && !i.module.starts_with('.')
        })?;
        // Path-like modules keep their slashes: `@acme/ui.button`, `net/http.Get`.
        let module = import.module.replace("::", ".");
        let mut name = match (import.name.as_deref(), &import.alias) {
            (Some("*"), _) => module,
            (Some(imported), _) => format!("{module}.{imported}"),
            (None, Some(_)) => module,
            // `import os.path` binds `os`: the name starts at the module's first segment.
            (None, None) if module.split('.').next() == Some(*head) => head.to_string(),
            (None, None) => module,
        };
        for part in rest {
            name = format!("{name}.{part}");
        }
        Some(name.replace('.', lang.separator))
    }

    /// The first base outside the repository of a class, up its bases inside it.
    fn outside_base(&self, class: i64, depth: usize) -> Option<String> {
        if depth >= MAX_BASE_DEPTH {
            return None;
        }
        let class = self.symbol(class)?;
        for base in &class.bases {
            let normalized = base.replace("::", ".");
            let segments: Vec<&str> = normalized.split('.').collect();
            if let Some(name) = self.imported_from_outside(class.file, &segments) {
                return Some(name);
            }
            for base_class in self.classes_named_by_base(class, base) {
                if let Some(name) = self.outside_base(base_class, depth + 1) {
                    return Some(name);
                }
            }
        }
        None
    }

    /// [`Graph::resolve`], with a class answered as the class rather than
    /// the constructor a call of it runs (which may be a base class's).
    fn resolve_as_written(
        &self,
        file: i64,
        scope: Option<i64>,
        expression: &str,
    ) -> Vec<(i64, Confidence)> {
        self.as_written(|| self.resolve(file, scope, expression))
    }

    fn as_written<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = self.classes_as_written.replace(true);
        let out = f();
        self.classes_as_written.set(before);
        out
    }

    /// A class-like definition means its constructor when called.
    fn constructor_of(&self, id: i64) -> i64 {
        if self.classes_as_written.get() {
            return id;
        }
        let Some(s) = self.symbol(id) else {
            return id;
        };
        if !s.kind.is_class_like() {
            return id;
        }
        let Some(lang) = self.lang_of(s.file) else {
            return id;
        };
        for ctor in lang.constructors {
            let name = if *ctor == "$class" { &*s.name } else { ctor };
            if let Some(found) = self.child(id, name) {
                return found[0];
            }
        }
        // None of its own: where constructors are inherited, the first base's
        // that has one (declaration order, depth-first: Python's MRO for
        // single inheritance). The depth bounds cyclic or very deep bases.
        if !lang.inherited_constructors || self.constructor_depth.get() >= MAX_REEXPORT_DEPTH {
            return id;
        }
        self.constructor_depth.set(self.constructor_depth.get() + 1);
        let inherited = s.bases.iter().find_map(|base| {
            self.classes_named_by_base(s, base)
                .into_iter()
                .map(|class| self.constructor_of(class))
                .find(|ctor| self.symbol(*ctor).is_some_and(|c| !c.kind.is_class_like()))
        });
        self.constructor_depth.set(self.constructor_depth.get() - 1);
        inherited.unwrap_or(id)
    }

    /// What the top level of the file at `target` binds `name` to, when
    /// that is a definition (`export default helper`): as sure as the binding.
    fn bound_at_top_of(&self, target: &str, name: &str) -> Vec<(i64, Confidence)> {
        let Some(&file) = self.table.file_by_path.get(target) else {
            return Vec::new();
        };
        let Some(bound) = self.bound_in(file, None, name) else {
            return Vec::new();
        };
        let values = self.deeper(|| {
            bound
                .iter()
                .flat_map(|stored| self.values_of_binding(file, None, stored))
                .collect()
        });
        self.callables(&values)
            .into_iter()
            .map(|(id, _)| (id, Confidence::Exact))
            .collect()
    }

    /// Top-level definitions named `name` in the file or package directory at
    /// `target`, following re-exports (`from .mod import name` in `__init__.py`).
    fn exported(&self, target: &str, name: &str, depth: usize) -> Vec<i64> {
        let files: Vec<i64> = match self.table.file_by_path.get(target) {
            Some(id) => vec![*id],
            None => self
                .table
                .files_by_dir
                .get(target)
                .cloned()
                .unwrap_or_default(),
        };
        let mut found = Vec::new();
        for file in &files {
            if let Some(ids) = self.top(*file, name) {
                found.extend(ids);
            }
        }
        if found.is_empty() && depth < MAX_REEXPORT_DEPTH {
            for file in files {
                for import in self.table.imports_of(file).iter() {
                    let Some(next) = &import.target else {
                        continue;
                    };
                    let reexports =
                        import.binding() == Some(name) || import.name.as_deref() == Some("*");
                    if reexports {
                        let original = match import.name.as_deref() {
                            Some("*") | None => name,
                            Some(original) => original,
                        };
                        // `from . import sub` names a module, not a definition in it.
                        if self.table.file_by_path.get(next.as_str())
                            == self.table.file_by_path.get(target)
                        {
                            continue;
                        }
                        found.extend(self.exported(next, original, depth + 1));
                    }
                }
            }
        }
        found
    }

    fn resolve_bare(
        &self,
        file: i64,
        enclosing: Option<i64>,
        name: &str,
    ) -> Vec<(i64, Confidence)> {
        let lang = match self.lang_of(file) {
            Some(l) => l,
            None => return Vec::new(),
        };
        let exact = |ids: &[i64]| -> Vec<(i64, Confidence)> {
            ids.iter()
                .map(|id| (self.constructor_of(*id), Confidence::Exact))
                .collect()
        };
        // Nested definitions visible from the call, innermost first; a class body's
        // members are not in scope for its methods (except with an implicit `this`).
        let mut at = enclosing;
        while let Some(id) = at {
            let Some(s) = self.symbol(id) else {
                break;
            };
            // A namespace reopened in another file: its members there too.
            if s.kind == Kind::Namespace {
                if let Some(found) = self.through_namespaces(file, &[&s.name], name) {
                    return found;
                }
            }
            let in_body = at == enclosing && lang.class_body_is_scope;
            if !s.kind.is_class_like() || lang.implicit_this || in_body {
                if let Some(ids) = self.child(id, name) {
                    return exact(ids);
                }
            }
            // Java's implicit `this` reaches inherited methods too.
            if s.kind.is_class_like() && lang.implicit_this {
                let owner = s.name.to_string();
                let inherited = self.method_of(Some(id), &owner, name, true, 0);
                if !inherited.is_empty() {
                    return inherited;
                }
            }
            at = s.parent;
        }
        if let Some(ids) = self.top(file, name) {
            return exact(ids);
        }
        if lang.directory_is_package {
            let dir = self
                .table
                .files
                .get(&file)
                .map_or("", |f| parent_dir(&f.path));
            let same_package: Vec<i64> = self
                .table
                .files_by_dir
                .get(dir)
                .into_iter()
                .flatten()
                .filter(|other| {
                    **other != file && self.lang_of(**other).map(|l| l.name) == Some(lang.name)
                })
                .filter_map(|other| self.top(*other, name))
                .flatten()
                .copied()
                .collect();
            if !same_package.is_empty() {
                return exact(&same_package);
            }
        }
        for import in self.table.imports_of(file).iter() {
            if import.binding() != Some(name) {
                continue;
            }
            let Some(target) = &import.target else {
                continue;
            };
            let original = import.name.as_deref().unwrap_or(name);
            let ids = self.exported(target, original, 0);
            if !ids.is_empty() {
                return exact(&ids);
            }
            // A name the module binds to a definition (its `default`).
            let held = self.bound_at_top_of(target, original);
            if !held.is_empty() {
                return held;
            }
        }
        // `#include`: every top-level name of every file the includes reach,
        // however deep (C's one namespace), looked up by name, not by walking
        // the include graph per call.
        let globbed = if lang.includes_are_transitive {
            self.through_includes(file, name)
        } else {
            // Glob imports: `from x import *`, `use a::*`.
            self.table
                .imports_of(file)
                .iter()
                .filter(|i| i.name.as_deref() == Some("*") && i.alias.is_none())
                .filter_map(|i| i.target.as_deref())
                .map(|target| self.exported(target, name, 0))
                .find(|ids| !ids.is_empty())
                .unwrap_or_default()
        };
        if !globbed.is_empty() {
            return exact(&globbed);
        }
        // Imported from outside the repository: not a guess, an external call.
        if self.imported_from_outside(file, &[name]).is_some() {
            return Vec::new();
        }
        self.name_only(name, NAME_ONLY_MAX, |s| {
            !matches!(s.kind, Kind::Method) || s.parent.is_none()
        })
    }

    /// Definitions named `name` that `keep` accepts, when there are at most `max`.
    /// A method on a receiver of unknown type is only guessed when its name is unique.
    fn name_only(
        &self,
        name: &str,
        max: usize,
        keep: impl Fn(&Symbol) -> bool,
    ) -> Vec<(i64, Confidence)> {
        // Only the calling language's family guesses: a Lua `M.sum` is no
        // Python `sum`.
        let family = self.consumer_file.get().and_then(|f| self.family(f));
        let candidates: Vec<i64> = self
            .table
            .named(name)
            .iter()
            .copied()
            .filter(|id| self.of_family(*id, family))
            .filter(|id| {
                // A declaration counts once, as its definition.
                self.table.defined_at(*id).is_empty()
                    && self.symbol(*id).is_some_and(|s| {
                        keep(s)
                            && matches!(
                                s.kind,
                                Kind::Function | Kind::Method | Kind::Class | Kind::Struct
                            )
                    })
            })
            .collect();
        if candidates.is_empty() || candidates.len() > max {
            return Vec::new();
        }
        candidates
            .into_iter()
            .map(|id| (self.constructor_of(id), Confidence::NameOnly))
            .collect()
    }

    /// Method `name` of a class (by id, or by owner name), then of its bases.
    fn method_of(
        &self,
        class: Option<i64>,
        owner: &str,
        name: &str,
        via_base: bool,
        depth: usize,
    ) -> Vec<(i64, Confidence)> {
        let confidence = if via_base {
            Confidence::Inferred
        } else {
            Confidence::Exact
        };
        if let Some(class) = class {
            if let Some(ids) = self.child(class, name) {
                return ids.iter().map(|id| (*id, confidence)).collect();
            }
        }
        if let Some(ids) = self.owned(owner, name) {
            // Found by the owner's name: exact when it sits beside the class we
            // resolved (a Rust `impl` in the same file), a guess otherwise;
            // never a namesake class's in another language.
            let class_file = class.and_then(|c| self.symbol(c)).map(|c| c.file);
            let family = class_file.and_then(|f| self.family(f));
            return ids
                .iter()
                .filter(|id| self.of_family(**id, family))
                .map(|id| {
                    let beside =
                        class_file.is_some() && class_file == self.symbol(*id).map(|s| s.file);
                    (
                        *id,
                        if beside && !via_base {
                            Confidence::Exact
                        } else {
                            Confidence::Inferred
                        },
                    )
                })
                .collect();
        }
        if depth >= MAX_REEXPORT_DEPTH {
            return Vec::new();
        }
        match class {
            // The bases in method resolution order; each is searched alone.
            Some(class) => self.inherited_method(class, name),
            None => Vec::new(),
        }
    }

    /// Resolves one call site. A call that reaches a decorated function by
    /// its name runs what the decorators return; one through a local name or
    /// a parameter runs what that holds (the function a decorator is given
    /// is the function as written).
    pub(crate) fn resolve(
        &self,
        file: i64,
        enclosing: Option<i64>,
        callee: &str,
    ) -> Vec<(i64, Confidence)> {
        let outer = self.held_by_local.replace(false);
        let found = self.defined(self.resolve_callee(file, enclosing, callee));
        if self.held_by_local.replace(outer) || self.classes_as_written.get() {
            return found;
        }
        self.through_decorators(found)
    }

    /// `last` inside the namespaces or modules `head` names, outermost first:
    /// every namespace of the caller's language with that name (a namespace
    /// spans files), then their members by name. `None` when `head[0]`
    /// names no namespace.
    fn through_namespaces(
        &self,
        file: i64,
        head: &[&str],
        last: &str,
    ) -> Option<Vec<(i64, Confidence)>> {
        let family = self.family(file);
        let is_scope = |s: &Symbol| matches!(s.kind, Kind::Namespace | Kind::Module);
        let mut scopes: Vec<i64> = self
            .table
            .named(head[0])
            .iter()
            .copied()
            .filter(|id| {
                self.symbol(*id).is_some_and(|s| {
                    is_scope(s)
                        && self.family(s.file) == family
                        && s.parent.and_then(|p| self.symbol(p)).is_none_or(is_scope)
                })
            })
            .collect();
        if scopes.is_empty() {
            return None;
        }
        for segment in &head[1..] {
            scopes = scopes
                .iter()
                .filter_map(|s| self.child(*s, segment))
                .flatten()
                .copied()
                .collect();
            if scopes.is_empty() {
                return None;
            }
        }
        let mut found = Vec::new();
        for id in scopes {
            let Some(s) = self.symbol(id) else {
                continue;
            };
            if s.kind.is_class_like() {
                found.extend(self.method_of(Some(id), &s.name, last, false, 0));
            } else if let Some(ids) = self.child(id, last) {
                found.extend(
                    ids.iter()
                        .map(|i| (self.constructor_of(*i), Confidence::Exact)),
                );
            }
        }
        (!found.is_empty()).then_some(found)
    }

    /// Methods named `name` defined on a table or type of the file at
    /// `target` outside any class body (`function M.f()`), as guesses.
    fn members_of_file_tables(&self, target: &str, name: &str) -> Vec<(i64, Confidence)> {
        let Some(&file) = self.table.file_by_path.get(target) else {
            return Vec::new();
        };
        self.table
            .named(name)
            .iter()
            .filter(|id| {
                self.symbol(**id).is_some_and(|s| {
                    s.file == file && s.kind == Kind::Method && s.qualified_name.is_some()
                })
            })
            .map(|id| (*id, Confidence::Inferred))
            .collect()
    }

    /// The top-level definitions named `name` (or members of a namespace) in
    /// the files `file` includes, directly or not.
    fn through_includes(&self, file: i64, name: &str) -> Vec<i64> {
        let candidates = self.table.named(name);
        let closure = self.include_closure(file);
        candidates
            .iter()
            .copied()
            .filter(|id| {
                self.symbol(*id).is_some_and(|s| {
                    closure.contains(&s.file)
                        && s.parent
                            .and_then(|p| self.symbol(p))
                            .is_none_or(|p| p.kind == Kind::Namespace)
                })
            })
            .collect()
    }

    /// Every file `file` includes, directly or through other includes
    /// (itself too), kept for the file whose calls are being resolved.
    fn include_closure(&self, file: i64) -> Rc<FxHashSet<i64>> {
        if let Some((cached, closure)) = &*self.include_closure.borrow() {
            if *cached == file {
                return closure.clone();
            }
        }
        let mut closure: FxHashSet<i64> = FxHashSet::default();
        closure.insert(file);
        let mut frontier = vec![file];
        while let Some(at) = frontier.pop() {
            for import in self.table.imports_of(at).iter() {
                if import.name.as_deref() != Some("*") {
                    continue;
                }
                let Some(&target) = import
                    .target
                    .as_ref()
                    .and_then(|t| self.table.file_by_path.get(t))
                else {
                    continue;
                };
                if closure.insert(target) {
                    frontier.push(target);
                }
            }
        }
        let closure = Rc::new(closure);
        *self.include_closure.borrow_mut() = Some((file, closure.clone()));
        closure
    }

    /// Declarations replaced by their definitions, where the index has them.
    fn defined(&self, found: Vec<(i64, Confidence)>) -> Vec<(i64, Confidence)> {
        // The common case, on every call resolved: one target, no declaration.
        if let [(id, _)] = found.as_slice() {
            if self.table.defined_at(*id).is_empty() {
                return found;
            }
        }
        let mut out: Vec<(i64, Confidence)> = Vec::with_capacity(found.len());
        for (id, confidence) in found {
            match self.table.defined_at(id) {
                [] => out.push((id, confidence)),
                definitions => out.extend(definitions.iter().map(|d| (*d, confidence))),
            }
        }
        // One target once, at its surest confidence (a declaration and its
        // definition may both have been found).
        let mut best: FxHashMap<i64, Confidence> = FxHashMap::default();
        for (id, confidence) in &out {
            best.entry(*id)
                .and_modify(|c| *c = (*c).min(*confidence))
                .or_insert(*confidence);
        }
        out.iter_mut().for_each(|(id, c)| *c = best[id]);
        let mut seen = FxHashSet::default();
        out.retain(|(id, _)| seen.insert(*id));
        out
    }

    fn resolve_callee(
        &self,
        file: i64,
        enclosing: Option<i64>,
        callee: &str,
    ) -> Vec<(i64, Confidence)> {
        let Some(lang) = self.lang_of(file) else {
            return Vec::new();
        };
        let callee = callee.trim().trim_start_matches("new ").trim();
        // `", ".join`: a method of the language's string type, never the repository's.
        if callee
            .rsplit_once('.')
            .is_some_and(|(receiver, _)| flow::is_string_literal(receiver))
        {
            return Vec::new();
        }
        // `OPS[name]()`: what the container's elements hold.
        if flow::container_of_element(callee).is_some() {
            let found = self.callables(&self.values_of_expr(file, enclosing, callee));
            if !found.is_empty() {
                return found;
            }
        }
        // A call of a call's result (`make()()`, a decorator `@route("/")`
        // applied): what the result holds, else nothing to guess by name.
        if callee.ends_with(')') && !callee.starts_with('(') {
            return self.callables(&self.values_of_expr(file, enclosing, callee));
        }
        // Chained calls: `Cls(...).m` is a method of a fresh `Cls`, `f().m` of
        // what `f` returns; otherwise (`x[0].m`) the receiver's type is unknown.
        if callee.contains('(') || callee.contains('[') {
            let name = crate::lang::extract::last_identifier(callee);
            // `super().m(...)` (and `super(Cls, self).m`): a method of a base
            // class; when none in the repository has it, it is outside.
            let head = callee.split('(').next().unwrap_or("").trim();
            if lang.base_receivers.contains(&head) && callee.ends_with(&format!(").{name}")) {
                return self.base_method(enclosing, name);
            }
            if let Some(receiver) = callee.strip_suffix(name).and_then(|r| r.strip_suffix('.')) {
                let values = self.values_of_expr(file, enclosing, receiver);
                let found = self.methods_of_values(&values, name);
                if !found.is_empty() || self.all_lead_outside(&values) {
                    return found;
                }
            }
            return self.name_only(name, 1, |s| s.kind == Kind::Method);
        }
        let normalized = callee.replace("::", ".").replace("?.", ".");
        let segments: Vec<&str> = normalized.split('.').filter(|s| !s.is_empty()).collect();
        let Some((&last, head)) = segments.split_last() else {
            return Vec::new();
        };
        if head.is_empty() {
            // `cls(...)` in a classmethod, `Self(...)`/`Self { }` constructors.
            if lang.class_names.contains(&last) {
                if let Some((Some(class), _)) = self.owner_class(enclosing) {
                    return vec![(self.constructor_of(class), Confidence::Exact)];
                }
            }
            // A name bound inside the function (`fn = a`, `s = factory()`)
            // hides what the module calls so.
            if let Some(found) = self.called_through_local(file, enclosing, last) {
                self.held_by_local.set(true);
                return found;
            }
            let found = self.resolve_bare(file, enclosing, last);
            return self.through_variables(found);
        }
        // `p->handler()` in C: a function pointer, whatever it holds.
        if lang.fields_are_pointers {
            return Vec::new();
        }
        let via_base = head.len() == 1 && lang.base_receivers.contains(&head[0]);
        let via_self = head.len() == 1 && lang.self_receivers.contains(&head[0]);
        if via_base || via_self {
            if let Some((class, owner)) = self.owner_class(enclosing) {
                let found = if via_base {
                    self.base_method(enclosing, last)
                } else {
                    self.method_of(class, &owner, last, false, 0)
                        .into_iter()
                        .map(|(id, c)| {
                            // An `impl` of the caller's own type in the caller's file.
                            let same_file = self.symbol(id).is_some_and(|s| s.file == file);
                            (
                                id,
                                if class.is_none() && same_file {
                                    Confidence::Exact
                                } else {
                                    c
                                },
                            )
                        })
                        .collect()
                };
                if !found.is_empty() {
                    return found;
                }
                // Neither the class nor its bases define it: `self.m()` runs
                // a subclass's `m` (a template method), unless a base outside
                // the repository may provide it.
                if let (Some(class), false) = (class, via_base) {
                    let found = self.overrides_below(class, last);
                    if !found.is_empty() && self.outside_base_cached(class).is_none() {
                        return found;
                    }
                }
            }
            return self.name_only(last, 1, |s| s.kind == Kind::Method);
        }
        // `x = Cls(); x.m()`, `def f(x: Cls)`, `self.store.open()`: the
        // receiver's type through its bindings.
        if lang.self_receivers.contains(&head[0])
            || !self.bindings(file, enclosing, head[0]).is_empty()
        {
            let receiver = head.join(".");
            let values = self.values_of_expr(file, enclosing, &receiver);
            let found = self.methods_of_values(&values, last);
            // Known to come from outside: `outside` names it, nothing is guessed.
            if !found.is_empty() || self.all_lead_outside(&values) {
                return found;
            }
        }
        // `m.f()` / `pkg.mod.f()` / `Alias::new()` through the file's imports.
        let head_text = head.join(lang.separator);
        for import in self.table.imports_of(file).iter() {
            let Some(target) = &import.target else {
                continue;
            };
            let binds_head = import.binding() == Some(head[0]) && head.len() == 1;
            let names_module =
                import.name.is_none() && import.alias.is_none() && import.module == head_text;
            if !(binds_head || names_module) {
                continue;
            }
            let found = match import.name.as_deref() {
                // The import names an item (`from m import Cls`, `use a::Db as D`):
                // `Cls.f` is a method of it, unless the item is itself a module file.
                Some(item) if item != "*" && !self.is_module_named(target, item) => self
                    .exported(target, item, 0)
                    .into_iter()
                    .filter(|id| self.symbol(*id).is_some_and(|s| s.kind.is_class_like()))
                    .flat_map(|class| {
                        let owner = self
                            .symbol(class)
                            .map_or(String::new(), |c| c.name.to_string());
                        self.method_of(Some(class), &owner, last, false, 0)
                    })
                    .collect(),
                _ => self
                    .exported(target, last, 0)
                    .into_iter()
                    .map(|id| (self.constructor_of(id), Confidence::Exact))
                    .collect::<Vec<_>>(),
            };
            if !found.is_empty() {
                return found;
            }
            // A module that returns a table of functions (Lua's `local M = {}
            // ... function M.f() ... return M`): `mod.f` is that file's `M.f`.
            if import.name.is_none() {
                let owned_there = self.members_of_file_tables(target, last);
                if !owned_there.is_empty() {
                    return owned_there;
                }
            }
        }
        // Rust module paths: `crate::a::f()`, `super::f()`, another crate
        // of the workspace: `evident_index::store::f()`.
        if lang.module_path_heads.contains(&head[0]) || self.resolver.is_rust_crate(head[0]) {
            let path = self
                .table
                .files
                .get(&file)
                .map(|f| f.path.as_str())
                .unwrap_or("");
            if let Some(target) = self.resolver.resolve(lang, path, &head_text, None) {
                let ids = self.exported(&target, last, 0);
                if !ids.is_empty() {
                    return ids.into_iter().map(|id| (id, Confidence::Exact)).collect();
                }
            }
        }
        // `ns::f()`, `ns::Cls::m()`, `Shop::Pricing.new`: through namespaces
        // and modules, which may be reopened in many files.
        if let Some(found) = self.through_namespaces(file, head, last) {
            return found;
        }
        // `Cls.method` / `Type::method`: the head names a class or type.
        let owner = *head.last().unwrap_or(&"");
        let owner_ids = self.resolve_bare(file, enclosing, owner);
        for (owner_id, confidence) in &owner_ids {
            let class = match self.symbol(*owner_id) {
                Some(s) if s.kind.is_class_like() => Some(*owner_id),
                Some(s) => s.parent.filter(|p| {
                    self.symbol(*p)
                        .is_some_and(|p| p.kind.is_class_like() && &*p.name == owner)
                }),
                None => None,
            };
            if class.is_some()
                || matches!(
                    self.symbol(*owner_id).map(|s| s.kind),
                    Some(Kind::Struct | Kind::Enum | Kind::Trait)
                )
            {
                let found = self.method_of(class.or(Some(*owner_id)), owner, last, false, 0);
                if !found.is_empty() {
                    let worst = *confidence;
                    return found
                        .into_iter()
                        .map(|(id, c)| (id, c.max(worst)))
                        .collect();
                }
            }
        }
        if self.imported_from_outside(file, &segments).is_some() {
            return Vec::new();
        }
        if owner_ids.is_empty() {
            if let Some(ids) = self.owned(owner, last) {
                if ids.len() <= NAME_ONLY_MAX {
                    return ids.iter().map(|id| (*id, Confidence::Inferred)).collect();
                }
            }
        }
        self.name_only(last, 1, |s| s.kind == Kind::Method || s.parent.is_none())
    }
}

/// The edges into a changed file and its imports, before its rows change.
#[derive(Debug, Default)]
pub(crate) struct EdgesInto {
    /// `(call, old callee, qualified name, kind)`.
    edges: Vec<(i64, i64, String, String)>,
    imports: Vec<String>,
}

/// Which calls a run must (re-)resolve.
///
/// A call's resolution can only change when (a) its own file changed, (b) it
/// resolved into a changed file before (its old edge; when the file's flow
/// facts and imports are the same, the edge moves onto the new rows
/// instead), (c) its file imports a changed file (directly, or through a
/// changed re-exporting file), (d) the set of definitions carrying its name
/// changed, which moves name-only and owner-name guesses, (e) what a changed
/// file tells the types that flow changed and its file imports that file,
/// however indirectly, or (f) it used argument flow and a call binding the
/// parameter was resolved again (`argument_calls`). Everything else keeps
/// its edges.
#[derive(Debug, Default)]
pub(crate) struct Invalidation {
    /// Resolve every call (a new index, a rebuild, or after an interrupted run).
    pub all: bool,
    /// Files whose rows were written or removed in this run.
    pub changed_paths: HashSet<String>,
    /// Per definition name: how many the changed files had before minus after.
    pub name_balance: HashMap<String, i64>,
    /// Calls whose old edges pointed into changed files and could not move
    /// onto the new rows.
    pub calls: HashSet<i64>,
    /// Per changed file, until its new rows are written: the edges into it
    /// and its imports before, to move the edges onto the new rows instead
    /// of resolving their calls again when nothing they depend on changed.
    pub edges_into: HashMap<String, EdgesInto>,
    /// What changed files told the types that flow before this run
    /// ([`flow_facts`]), until their new rows are noted.
    pub flow_before: HashMap<String, Vec<String>>,
    /// Files whose facts for the types that flow changed: every call in a
    /// file that imports them, directly or not, may now resolve elsewhere.
    pub flow_changed: HashSet<String>,
    /// Names defined in files whose classes' bases changed: a `self.m()`
    /// in a base class may now reach (or no longer reach) a subclass's `m`.
    pub rebased_names: HashSet<String>,
    /// The bases named in changed `class X(...)` lines, before and after:
    /// their classes' `self.m()` calls may now reach a subclass or leave the
    /// repository through one.
    pub rebased_bases: HashSet<String>,
}

/// What a file tells the types that flow in other files: bindings at its top
/// level, in class bodies, of attributes and of returns, and class bases.
/// Locals are left out: they only matter to the file's own calls.
fn flow_facts(facts: &crate::lang::extract::FileFacts) -> Vec<String> {
    let mut out = Vec::new();
    for a in &facts.assignments {
        let scope = a.enclosing.and_then(|i| facts.definitions.get(i));
        let exported = scope.is_none_or(|d| d.kind.is_class_like())
            || a.name == "return"
            || a.name.contains('.');
        if exported {
            let owner = scope.map_or("", |d| d.qualified_name.as_str());
            out.push(format!("{owner}\t{}\t{}", a.name, a.value));
        }
    }
    // The names other files can reach: an alias or an argument that names
    // one (`x = lib.work`, `apply(lib.work)`) is no call of it.
    for d in &facts.definitions {
        let reachable = d
            .parent
            .and_then(|p| facts.definitions.get(p))
            .is_none_or(|p| p.kind.is_class_like());
        if reachable {
            out.push(format!(
                "{}\t<definition>\t{}",
                d.qualified_name,
                d.kind.as_str()
            ));
        }
    }
    for d in facts.definitions.iter().filter(|d| !d.bases.is_empty()) {
        out.push(format!(
            "{}\t<bases>\t{}",
            d.qualified_name,
            d.bases.join("\n")
        ));
    }
    out.sort();
    out
}

impl Invalidation {
    pub fn is_empty(&self) -> bool {
        !self.all && self.changed_paths.is_empty()
    }

    /// Records what a file contributed before its rows are replaced or removed.
    pub(crate) fn note_old_rows(
        &mut self,
        conn: &Connection,
        file_id: i64,
        path: &str,
    ) -> Result<()> {
        self.changed_paths.insert(path.to_string());
        if self.all {
            return Ok(());
        }
        for name in rows::names_defined_in(conn, file_id)? {
            *self.name_balance.entry(name).or_default() += 1;
        }
        self.flow_before
            .insert(path.to_string(), rows::flow_facts_of(conn, file_id)?);
        // Resolved again unless `note_written` moves them.
        let edges = rows::edges_into(conn, file_id)?;
        let imports = rows::import_rows(conn, file_id)?;
        self.edges_into
            .insert(path.to_string(), EdgesInto { edges, imports });
        Ok(())
    }

    /// After a changed file's new rows are written: when what other files
    /// resolve through it is the same (its flow facts, which hold the
    /// definitions other files reach, and its imports), the calls into it
    /// resolve as before, so their edges move onto the new rows of the same
    /// definitions (by qualified name and kind, each unique) instead of
    /// being resolved again.
    pub(crate) fn note_written(
        &mut self,
        conn: &Connection,
        file_id: i64,
        path: &str,
    ) -> Result<()> {
        let Some(before) = self.edges_into.remove(path) else {
            return Ok(());
        };
        if self.all || before.edges.is_empty() {
            return Ok(());
        }
        if self.flow_changed.contains(path) || rows::import_rows(conn, file_id)? != before.imports {
            self.calls.extend(before.edges.iter().map(|e| e.0));
            return Ok(());
        }
        let key = |name: &str, kind: &str| format!("{name}\t{kind}");
        let mut new_ids: HashMap<String, Option<i64>> = HashMap::new();
        for (id, name, kind) in rows::definition_keys(conn, file_id)? {
            new_ids
                .entry(key(&name, &kind))
                .and_modify(|e| *e = None)
                .or_insert(Some(id));
        }
        let mut moves = Vec::new();
        for (call, old, name, kind) in &before.edges {
            if let Some(Some(new)) = new_ids.get(&key(name, kind)) {
                moves.push((*call, *old, *new));
            }
        }
        // A call moves only when every edge it had moves (one resolved
        // again keeps all its targets together).
        let partial: HashSet<i64> = before
            .edges
            .iter()
            .filter(|(_, _, name, kind)| !matches!(new_ids.get(&key(name, kind)), Some(Some(_))))
            .map(|e| e.0)
            .collect();
        // A definition that kept its id keeps its edges as they are.
        moves.retain(|(call, old, new)| !partial.contains(call) && old != new);
        rows::remap_edges(conn, &moves)?;
        self.calls.extend(partial);
        Ok(())
    }

    /// The calls into changed files whose new rows were never written (the
    /// file was removed or could not be read): resolved again.
    pub(crate) fn settle_unwritten(&mut self) {
        for (_, before) in self.edges_into.drain() {
            self.calls.extend(before.edges.iter().map(|e| e.0));
        }
    }

    /// Records the definitions a file has now.
    pub fn note_new_definitions<'a>(
        &mut self,
        path: &str,
        names: impl IntoIterator<Item = &'a str>,
    ) {
        self.changed_paths.insert(path.to_string());
        if !self.all {
            for name in names {
                *self.name_balance.entry(name.to_string()).or_default() -= 1;
            }
        }
    }

    /// Records what a file now tells the types that flow (see [`flow_facts`]),
    /// and the names it defines.
    pub fn note_new_flow(&mut self, path: &str, file: &crate::lang::extract::FileFacts) {
        // A run that resolves everything needs no comparison (cold index, rebuild).
        if self.all {
            return;
        }
        let facts = flow_facts(file);
        let names = file.definitions.iter().map(|d| d.name.as_str());
        let before = self.flow_before.remove(path).unwrap_or_default();
        if before != facts {
            self.flow_changed.insert(path.to_string());
            let bases = |facts: &[String]| -> Vec<String> {
                facts
                    .iter()
                    .filter(|f| f.contains("\t<bases>\t"))
                    .cloned()
                    .collect()
            };
            let (old_bases, new_bases) = (bases(&before), bases(&facts));
            if old_bases != new_bases {
                self.rebased_names
                    .extend(names.into_iter().map(str::to_string));
                for fact in old_bases.iter().chain(&new_bases) {
                    let written = fact.rsplit('\t').next().unwrap_or("");
                    self.rebased_bases.extend(
                        written
                            .lines()
                            .map(|b| crate::lang::extract::last_identifier(b).to_string()),
                    );
                }
            }
        }
    }

    /// Files whose flow facts changed, removed files with facts included.
    fn flow_changed_paths(&self) -> impl Iterator<Item = &String> {
        let removed = self
            .flow_before
            .iter()
            .filter(|(_, facts)| !facts.is_empty())
            .map(|(path, _)| path);
        self.flow_changed.iter().chain(removed)
    }

    /// Names whose number of definitions changed, and those defined by
    /// classes whose bases changed.
    fn dirty_names(&self) -> impl Iterator<Item = &String> {
        self.name_balance
            .iter()
            .filter(|(_, n)| **n != 0)
            .map(|(name, _)| name)
            .chain(&self.rebased_names)
    }
}

/// Re-resolves the calls `invalid` names and replaces their edges.
/// Returns how many calls were resolved.
/// An incremental run that marks more than 1/`EVERYTHING_PAST` of all call
/// sites, and more than `EVERYTHING_FLOOR`, resolves every call instead (the
/// floor keeps small repositories, and the tests, on the incremental path).
const EVERYTHING_PAST: usize = 3;
const EVERYTHING_FLOOR: usize = 10_000;

pub(crate) fn resolve_calls(
    conn: &Connection,
    resolver: &Resolver,
    invalid: &Invalidation,
) -> Result<usize> {
    // A constructor added to or removed from a class changes what every call
    // of its subclasses runs, wherever they are: resolve everything again.
    let constructors_changed = invalid.dirty_names().any(|name| {
        lang::LANGUAGES
            .iter()
            .any(|l| l.inherited_constructors && l.constructors.contains(&name.as_str()))
    });
    let mut everything = invalid.all || constructors_changed;
    if !everything {
        // A changed type flows on through every file that imports the
        // changed one, however indirectly: all their calls are resolved again.
        let flowing = rows::importers_closure(conn, invalid.flow_changed_paths())?;
        // A class that gained or lost a subclass: its `self.m()` calls, and
        // its ancestors' (subclass dispatch looks that far down).
        let ancestry =
            rows::files_of_classes_and_ancestors(conn, &invalid.rebased_bases, MAX_BASE_DEPTH)?;
        let paths = invalid
            .changed_paths
            .iter()
            .chain(&flowing)
            .chain(&ancestry)
            .flat_map(|p| [p.as_str(), parent_dir(p)]);
        let marked =
            rows::mark_dirty_calls(conn, invalid.dirty_names(), paths, invalid.calls.iter())?;
        // Dropping most edges one by one (and their index entries) costs far
        // more than dropping them all and resolving everything: a kernel
        // header that thousands of files include marks most calls. The
        // result is the same either way (incremental == rebuild).
        everything =
            marked > EVERYTHING_FLOOR && marked > rows::call_count(conn)? / EVERYTHING_PAST;
    }
    let calls = if everything {
        rows::all_calls_without_edges(conn)?
    } else {
        rows::take_dirty_calls(conn)?
    };
    if calls.is_empty() {
        if everything {
            crate::store::ensure_secondary_indexes(conn)?;
        }
        return Ok(0);
    }
    let t = std::time::Instant::now();
    let loading = if everything {
        Loading::Everything
    } else {
        Loading::AsAsked
    };
    let graph = Graph::load(conn, resolver, loading)?;
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        eprintln!(
            "profile:   graph load: {:.1} ms for {} calls",
            t.elapsed().as_secs_f64() * 1e3,
            calls.len()
        );
    }
    let mut writing = std::time::Duration::ZERO;
    for call in &calls {
        graph.start_consumer_file(call.file);
        let mut targets = graph.resolve(call.file, call.enclosing, &call.callee);
        let outside = if targets.is_empty() {
            graph.outside(call.file, call.enclosing, &call.callee)
        } else {
            None
        };
        let t = std::time::Instant::now();
        for function in graph.arguments_used.borrow().iter() {
            rows::insert_argument_call(conn, call, function)?;
        }
        writing += t.elapsed();
        if targets.is_empty() {
            if let Some((target, kind)) = outside {
                let t = std::time::Instant::now();
                rows::insert_external(conn, call, &target, kind)?;
                writing += t.elapsed();
            }
            continue;
        }
        targets.sort_unstable();
        targets.dedup_by_key(|(id, _)| *id);
        let t = std::time::Instant::now();
        for (callee_id, confidence) in targets {
            rows::insert_edge(conn, call, callee_id, confidence.as_str())?;
        }
        writing += t.elapsed();
    }
    if let Some(e) = graph.take_read_error() {
        return Err(e);
    }
    if everything {
        crate::store::ensure_secondary_indexes(conn)?;
    }
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        eprintln!(
            "profile:   resolving {:.1} ms, of which writing edges {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3,
            writing.as_secs_f64() * 1e3
        );
    }

    Ok(calls.len())
}
