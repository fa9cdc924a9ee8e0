//! One resolution pass's state: the symbol table, the caches it fills and
//! the limits it keeps. The rules live in `resolve`, `scope`, `flow`,
//! `hierarchy` and `outside`, as `impl Graph` blocks.

use std::rc::Rc;

use rusqlite::Connection;
use rustc_hash::{FxHashMap, FxHashSet};

use super::table::{Loading, Symbol, Table};
use crate::error::Result;
use crate::evidence::Kind;
use crate::lang::imports::Resolver;
use crate::lang::{self, LanguageSpec};
use crate::store::graph as rows;

/// Above this many same-named definitions a name-only guess is no evidence.
pub(super) const NAME_ONLY_MAX: usize = 6;
/// Re-export chains (`__init__.py`, `index.ts`, `mod.rs`) followed at most this deep.
pub(super) const MAX_REEXPORT_DEPTH: usize = 4;
/// A name bound more often than this in one scope is followed no further.
pub(super) const MAX_BINDINGS: usize = 8;
/// A container with more elements than this is followed no further (a
/// dispatch table has more entries than a name has bindings).
pub(super) const MAX_ELEMENTS: usize = 64;
/// Class hierarchies followed at most this deep to a base outside the repository.
pub(super) const MAX_BASE_DEPTH: usize = 8;
/// Above this many subclass definitions a `self.m()` names no one of them.
pub(super) const MAX_OVERRIDES: usize = 10;
/// A function called more often than this in its file binds its parameters
/// to nothing (argument flow would cost more than it tells).
pub(super) const MAX_ARGUMENT_SITES: usize = 16;
/// Bindings followed at most this deep (an alias of a call's result of ...).
pub(super) const MAX_FLOW_DEPTH: usize = 6;
/// Evaluations with the whole flow depth nested at most this deep (a
/// class's bases found while another class's bases are found ...).
pub(super) const MAX_WHOLE_DEPTH_NESTING: usize = 8;

/// A file's bindings: enclosing definition → name → each binding's stored
/// form ([`Binding::encode`]); a name bound in two branches has two.
pub(super) type FileBindings = FxHashMap<Option<i64>, FxHashMap<String, Vec<Rc<str>>>>;

/// A class's attributes: name → its bindings, each with where it is evaluated.
pub(super) type Attributes = FxHashMap<String, Vec<BindingSite>>;

/// An evaluation remembered for one file's calls, with the functions whose
/// parameters it used and how many levels below its start it went
/// ([`Graph::remembered`]).
pub(super) type Remembered = (Vec<Value>, Vec<Rc<str>>, usize);

/// What a pass remembers of one evaluation: the complete value with the
/// levels it needed, and values the flow depth cut, by the levels that were
/// left. Each depends on nothing but the key and the levels left, so what a
/// call resolves to does not depend on which call asked first.
#[derive(Default)]
pub(super) struct Memo {
    pub(super) complete: Option<(Vec<Value>, usize)>,
    pub(super) cut: Vec<(usize, Vec<Value>)>,
}

impl Memo {
    /// The value with `left` levels left: the levels it takes (all that
    /// are left when it was cut), and whether it was cut.
    pub(super) fn get(&self, left: usize) -> Option<(&[Value], usize, bool)> {
        if let Some((values, height)) = &self.complete {
            if *height <= left {
                return Some((values, *height, false));
            }
        }
        let (_, values) = self.cut.iter().find(|(l, _)| *l == left)?;
        Some((values, left, true))
    }
}

/// A parameter of a function: `(function, name)`.
pub(super) type ParameterKey = (i64, Box<str>);

/// An expression in a scope: `(file, scope, text)`.
pub(super) type ExprKey = (i64, Option<i64>, Box<str>);

/// A stored binding with where it is evaluated: `(file, scope, stored value)`.
pub(crate) type BindingSite = (i64, Option<i64>, String);

/// What a name or an expression holds, as far as the types that flow tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Value {
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
pub(super) struct OutsideValues {
    pub(super) names: Vec<(Rc<str>, &'static str)>,
    pub(super) ids: FxHashMap<(Rc<str>, &'static str), u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Confidence {
    /// From a compiler's index (SCIP): outranks every other.
    Precise,
    Exact,
    Inferred,
    NameOnly,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Precise => "precise",
            Confidence::Exact => "exact",
            Confidence::Inferred => "inferred",
            Confidence::NameOnly => "name_only",
        }
    }
}

/// One resolution pass: the symbol table and what the pass learned.
pub(crate) struct Graph<'r> {
    pub(super) resolver: &'r Resolver,
    pub(super) table: Table<'r>,
    pub(super) conn: &'r Connection,
    /// File → its bindings, read from the index when first needed (a pass
    /// that resolves a few calls reads a few files'): see [`FileBindings`].
    pub(super) file_bindings: std::cell::RefCell<FxHashMap<i64, Rc<FileBindings>>>,
    /// Class → attribute → bindings and the scope each is evaluated in:
    /// `self.x = ...` in any method, and the class body's own names; built
    /// from the class's file when first needed.
    pub(super) attributes: std::cell::RefCell<FxHashMap<i64, Rc<Attributes>>>,
    /// Each class's bases and subclasses in the repository, once found.
    pub(super) base_lists: std::cell::RefCell<FxHashMap<i64, Rc<[i64]>>>,
    pub(super) subclass_lists: std::cell::RefCell<FxHashMap<i64, Rc<[i64]>>>,
    /// Files whose classes' attributes are in `attributes`.
    pub(super) attribute_files: std::cell::RefCell<FxHashSet<i64>>,
    /// The first error reading bindings lazily; the pass reports it.
    pub(super) read_error: std::cell::RefCell<Option<crate::error::Error>>,
    /// How deep the evaluation of bindings is nested (aliases of aliases,
    /// returns of returns); past [`MAX_FLOW_DEPTH`] nothing more is learned.
    pub(super) flow_depth: std::cell::Cell<usize>,
    /// The deepest level an evaluation in progress reached, so that what is
    /// remembered knows how many levels below its start it needs.
    pub(super) deepest: std::cell::Cell<usize>,
    /// While set, a class resolves to itself, not to its constructor.
    pub(super) classes_as_written: std::cell::Cell<bool>,
    /// Set as a call is answered by what a local name or a parameter holds
    /// (see [`Graph::resolve`]): decorators are not applied again to that.
    pub(super) held_by_local: std::cell::Cell<bool>,
    /// Set when an evaluation was cut by a cycle (or argument flow's one
    /// level): what it computed is partial and is not remembered.
    pub(super) truncated: std::cell::Cell<bool>,
    /// Set when an evaluation was cut by the flow depth alone: what it
    /// computed depends on the levels that were left, and is remembered
    /// with them.
    pub(super) depth_cut: std::cell::Cell<bool>,
    /// How many evaluations with the whole flow depth are nested
    /// ([`Graph::with_whole_depth`]).
    pub(super) whole_depth_nesting: std::cell::Cell<usize>,
    /// Expressions being evaluated: meeting one again is a cycle.
    pub(super) in_progress: std::cell::RefCell<FxHashSet<ExprKey>>,
    /// Evaluations by expression and by function's returns: a pass meets
    /// the same receivers and calls many times.
    pub(super) expr_cache: std::cell::RefCell<FxHashMap<ExprKey, Memo>>,
    pub(super) returns_cache: std::cell::RefCell<FxHashMap<i64, Memo>>,
    pub(super) linearizations: std::cell::RefCell<FxHashMap<i64, Vec<i64>>>,
    /// The last file's include closure (`include_closure`): calls are
    /// resolved file by file.
    pub(super) include_closure: std::cell::RefCell<Option<(i64, Rc<FxHashSet<i64>>)>>,
    /// Classes whose linearization is being computed: resolving a base
    /// (`Rack::Base`) may come back to the same class.
    pub(super) linearizing: std::cell::RefCell<FxHashSet<i64>>,
    /// Each module's list of what a glob import of it brings, once read
    /// (`None`: it has none).
    pub(super) names_lists: std::cell::RefCell<FxHashMap<i64, Option<Rc<str>>>>,
    /// Classes whose bases are being found: the same, for `bases_of`.
    pub(super) basing: std::cell::RefCell<FxHashSet<i64>>,
    /// How deep constructor lookups are nested (`a = b.X(); b = a.Y()` must end).
    pub(super) constructor_depth: std::cell::Cell<usize>,
    /// Each class's first base outside the repository, once looked up: every
    /// unresolved `self.m()` in a class asks the same question.
    pub(super) outside_bases: std::cell::RefCell<FxHashMap<i64, Option<String>>>,
    pub(super) outside_values: std::cell::RefCell<OutsideValues>,
    /// The file of the call being resolved: argument flow only feeds calls
    /// in the file of the function whose parameter it binds.
    pub(super) consumer_file: std::cell::Cell<Option<i64>>,
    /// Set while resolving a call that may bind a parameter: argument flow
    /// goes one level deep.
    pub(super) resolving_site: std::cell::Cell<bool>,
    /// Set while an evaluation depends on the file of the call being
    /// resolved (argument flow): it is remembered for that file only.
    pub(super) consumer_bound: std::cell::Cell<bool>,
    /// The functions whose parameters the call being resolved used.
    pub(super) arguments_used: std::cell::RefCell<Vec<Rc<str>>>,
    /// Evaluations that hold for the current call's file only.
    pub(super) local_expr_cache: std::cell::RefCell<FxHashMap<ExprKey, Remembered>>,
    pub(super) local_returns_cache: std::cell::RefCell<FxHashMap<i64, Remembered>>,
    /// `(function, parameter)` → what its calls in its file pass (the same
    /// for every call of that file).
    pub(super) argument_cache: std::cell::RefCell<FxHashMap<ParameterKey, Vec<Value>>>,
    /// Function → the calls of its file that may bind its parameters.
    pub(super) site_cache: std::cell::RefCell<FxHashMap<i64, Rc<Vec<rows::ArgumentSite>>>>,
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
            deepest: std::cell::Cell::new(0),
            classes_as_written: std::cell::Cell::new(false),
            held_by_local: std::cell::Cell::new(false),
            truncated: std::cell::Cell::new(false),
            depth_cut: std::cell::Cell::new(false),
            whole_depth_nesting: std::cell::Cell::new(0),
            in_progress: Default::default(),
            expr_cache: Default::default(),
            returns_cache: Default::default(),
            linearizations: Default::default(),
            linearizing: Default::default(),
            basing: Default::default(),
            names_lists: Default::default(),
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

    pub(super) fn symbol(&self, id: i64) -> Option<&Symbol> {
        self.table.symbol(id)
    }

    pub(super) fn child(&self, parent: i64, name: &str) -> Option<&[i64]> {
        self.table.child(parent, name)
    }

    pub(super) fn top(&self, file: i64, name: &str) -> Option<&[i64]> {
        self.table.top(file, name)
    }

    pub(super) fn owned(&self, owner: &str, name: &str) -> Option<&[i64]> {
        self.table.owned(owner, name)
    }

    pub(super) fn owner_from_qualified(&self, s: &Symbol) -> Option<String> {
        self.table.owner_from_qualified(s)
    }

    pub(super) fn lang_of(&self, file: i64) -> Option<&'static LanguageSpec> {
        self.table.files.get(&file).map(|f| f.lang)
    }

    /// The language family of a file: languages that resolve imports alike
    /// see each other's definitions (C with C++, a `.h` being either; JS
    /// with TS; the JVM's languages). Guesses never cross families.
    pub(super) fn family(
        &self,
        file: i64,
    ) -> Option<std::mem::Discriminant<lang::ImportResolution>> {
        self.lang_of(file)
            .map(|l| std::mem::discriminant(&l.import_resolution))
    }

    /// Whether the definition `id` is of the family `family`.
    pub(super) fn of_family(
        &self,
        id: i64,
        family: Option<std::mem::Discriminant<lang::ImportResolution>>,
    ) -> bool {
        family.is_none() || self.symbol(id).and_then(|s| self.family(s.file)) == family
    }

    /// Whether `function` may be run with `new` (its language's rule).
    pub(super) fn constructs(&self, function: i64) -> bool {
        self.symbol(function).is_some_and(|s| {
            s.kind == Kind::Function
                && self
                    .lang_of(s.file)
                    .is_some_and(|l| l.function_constructors)
        })
    }

    /// The class a method belongs to, by nesting or (Rust, Go) by qualified name.
    pub(super) fn owner_class(&self, enclosing: Option<i64>) -> Option<(Option<i64>, String)> {
        let mut at = enclosing;
        // The innermost function that may be run with `new`, in case no
        // class holds it.
        let mut constructor: Option<(i64, &str)> = None;
        while let Some(id) = at {
            let s = self.symbol(id)?;
            if s.kind.is_class_like() {
                return Some((Some(id), s.name.to_string()));
            }
            if s.kind == Kind::Method && s.qualified_name.is_some() {
                return self.owner_from_qualified(s).map(|o| (None, o));
            }
            if constructor.is_none() && self.constructs(id) {
                constructor = Some((id, &s.name));
            }
            at = s.parent;
        }
        constructor.map(|(id, name)| (Some(id), name.to_string()))
    }
}
