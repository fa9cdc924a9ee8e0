//! The facts one file contributes to the index: its definitions, imports,
//! call sites and bindings, as the parse cache and the store keep them.

use serde::{Deserialize, Serialize};

use crate::evidence::Kind;
use crate::lang::{self, LanguageSpec};

/// A definition found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub kind: Kind,
    pub name: String,
    pub qualified_name: String,
    pub signature: String,
    pub doc: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// Byte columns where the definition starts on `start_line` and ends on
    /// `end_line` (`u32::MAX`: at the line's end): on a long line (minified
    /// code) its search text is its own part of the line, not the line.
    pub columns: (u32, u32),
    /// Index into the file's definitions of the enclosing definition.
    pub parent: Option<usize>,
    /// Base classes as written (`models.Model`), for method lookup through inheritance.
    pub bases: Vec<String>,
    /// A declaration without a body (a C prototype in a header, a method
    /// declared in its class and defined outside): the definition with the
    /// same qualified name, where one exists, is where it is defined.
    pub declaration: bool,
}

/// One import binding: `from module import name as alias`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub start_line: u32,
    pub end_line: u32,
    pub module: String,
    /// The imported name; `*` for a glob import; `None` when the module itself is imported.
    pub name: Option<String>,
    pub alias: Option<String>,
    /// The local name the import makes visible (`osp` for `import os.path as osp`,
    /// `os` for `import os.path`); `None` for glob imports.
    pub binding: Option<String>,
}

/// The local name an import binds, by the language's rule for plain module imports.
pub fn import_binding(
    spec: &LanguageSpec,
    module: &str,
    name: Option<&str>,
    alias: Option<&str>,
) -> Option<String> {
    if let Some(alias) = alias {
        return Some(alias.to_string());
    }
    match name {
        Some("*") => None,
        Some(name) => Some(name.to_string()),
        None => {
            let sep = if module.contains('/') {
                "/"
            } else {
                spec.separator
            };
            let mut segments = module.split(sep).filter(|s| !s.is_empty() && *s != ".");
            let binding = match spec.module_binding {
                lang::ModuleBinding::FirstSegment => segments.next(),
                lang::ModuleBinding::LastSegment => segments.last(),
            };
            binding.map(|b| b.trim_start_matches('@').to_string())
        }
    }
}

/// A call site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    pub line: u32,
    pub callee: String,
    /// The last identifier of the callee (`open` in `self.store.open`).
    pub callee_name: String,
    /// The first identifier of the callee (`self` in `self.store.open`).
    pub callee_head: String,
    /// Index into the file's definitions of the innermost enclosing definition.
    pub enclosing: Option<usize>,
    /// The arguments as written (`work`, `callback=work`; `*` for a splat),
    /// for a parameter's value at the call (argument flow).
    pub arguments: Vec<String>,
}

/// The suffix naming a container's elements: `OPS[]` holds what `OPS[k]` gives.
pub const ELEMENTS: &str = "[]";

/// The prefix naming what a decorated definition's name holds: `@f` is bound
/// to each decorator of `f` (`@d def f` is `f = d(f)`). Kept apart from `f`
/// itself, which still names the definition as written (what the decorator
/// is given, a property's method).
pub const DECORATED: &str = "@";

/// The prefix naming what a type alias stands for: `type P = A | B` binds
/// `type P` to the type `A | B` (kept apart from a value named `P`).
pub const TYPE_ALIAS: &str = "type ";

/// What a binding says about a name, for the types that flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// `x = f(...)`: the result of calling `f` (a class: an instance of it).
    CallResult,
    /// `b = a.func`: whatever the expression is.
    Alias,
    /// `x: Foo`, `def f(x: Foo)`, `-> Foo`: declared to be a `Foo`.
    Type,
    /// `self.n = a + b`: bound here, to nothing the types can follow.
    Opaque,
    /// `def f(a, b)`: the parameter at this position, bound by each call.
    Parameter,
    /// `f((a, b) => ...)`: a callback's parameter, what `f` declares the
    /// callback's parameter at that position to be (`argument.parameter.callee`).
    Callback,
    /// `__all__ = ["a", "b"]`: the names a glob import of the module brings
    /// (space-separated; [`ANY_NAME`] when the list is not all literals).
    /// Nothing the types can follow.
    Names,
}

/// A [`Binding::Names`] list that could not be read: every name counts.
pub const ANY_NAME: &str = "*";

/// Whether a glob import of a module brings `name`, given the module's
/// [`Binding::Names`] list as stored (`None`: it has none, and every name
/// counts but, where the module's language says so, those that start with
/// `_`: `LanguageSpec::glob_leaves_private`).
pub fn glob_brings(stored_list: Option<&str>, name: &str, leaves_private: bool) -> bool {
    let Some(stored) = stored_list else {
        return !(leaves_private && name.starts_with('_'));
    };
    let (_, names) = Binding::decode(stored);
    names == ANY_NAME || names.split(' ').any(|n| n == name)
}

impl Binding {
    /// The stored form: `f()` for a call's result, `:Foo` for a type, the
    /// expression itself for an alias.
    pub fn encode(self, expression: &str) -> String {
        match self {
            Binding::CallResult => format!("{expression}()"),
            Binding::Alias => expression.to_string(),
            Binding::Type => format!(":{expression}"),
            Binding::Opaque => "?".to_string(),
            Binding::Parameter => format!("#{expression}"),
            Binding::Callback => format!("%{expression}"),
            Binding::Names => format!("={expression}"),
        }
    }

    /// The binding and its expression, from the stored form.
    pub fn decode(stored: &str) -> (Binding, &str) {
        if stored == "?" {
            (Binding::Opaque, "")
        } else if let Some(position) = stored
            .strip_prefix('#')
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            (Binding::Parameter, position)
        } else if let Some(callback) = stored.strip_prefix('%').filter(|c| is_callback(c)) {
            (Binding::Callback, callback)
        } else if let Some(names) = stored.strip_prefix('=') {
            (Binding::Names, names)
        } else if let Some(ty) = stored.strip_prefix(':') {
            (Binding::Type, ty)
        } else if let Some(callee) = stored.strip_suffix("()") {
            (Binding::CallResult, callee)
        } else {
            (Binding::Alias, stored)
        }
    }
}

/// `argument.parameter.callee`, two positions and a callee.
fn is_callback(text: &str) -> bool {
    let mut parts = text.splitn(3, '.');
    let digits =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    digits(parts.next()) && digits(parts.next()) && parts.next().is_some_and(|c| !c.is_empty())
}

/// A name bound in a scope: `x = Cls(...)`, `b = f`, `x: Foo`, a parameter's
/// annotation, or (name `return`) what a function returns. A name written
/// `self.x` is an attribute of the enclosing method's class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assignment {
    pub line: u32,
    pub name: String,
    /// As [`Binding::encode`] writes it.
    pub value: String,
    /// Index into the file's definitions of the enclosing definition.
    pub enclosing: Option<usize>,
}

/// Whether other files read a binding (the types that flow): one at the
/// top level (`scope` none) or in a class body, a return, or an attribute
/// (`self.x`, `exports.f`). A function's locals matter to its file only.
pub fn is_exported_binding(scope: Option<crate::evidence::Kind>, name: &str) -> bool {
    scope.is_none_or(|k| k.is_class_like()) || name == "return" || name.contains('.')
}

/// What one file contributes to the index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// The module path that prefixes qualified names.
    pub module: String,
    pub definitions: Vec<Definition>,
    pub imports: Vec<Import>,
    pub calls: Vec<Call>,
    pub assignments: Vec<Assignment>,
    /// The parse tree contains syntax errors; what could be read is still here.
    pub has_syntax_errors: bool,
    /// The language the file was read as, when not the one its extension
    /// names (a `.h` read as C++: the spec's `fallback`).
    /// (Kept apart in the parse cache: a name, not the table's own string.)
    #[serde(skip)]
    pub read_as: Option<&'static str>,
    pub line_count: u32,
    /// Set when the file gave more than [`super::MAX_FACTS_PER_FILE`] definitions or
    /// calls: the line from which it was read as text only.
    pub symbols_end_line: Option<u32>,
}

impl FileFacts {
    /// One [`Binding::Names`] list per name at the top level: the names of
    /// every list bound to it (`__all__ = [...]`, `__all__ += [...]`), or
    /// [`ANY_NAME`] when the name is also bound to something else than a
    /// list's type, or called on (`__all__.extend(...)`), or the file was
    /// not read to its end: what it holds then is not known, and every name
    /// counts.
    pub(super) fn settle_name_lists(&mut self) {
        let is_list =
            |a: &Assignment| a.enclosing.is_none() && Binding::decode(&a.value).0 == Binding::Names;
        let listed: std::collections::BTreeSet<String> = (self.assignments.iter())
            .filter(|a| is_list(a))
            .map(|a| a.name.clone())
            .collect();
        for list in listed {
            let mine = |a: &Assignment| a.enclosing.is_none() && a.name == list;
            let other_binding =
                self.assignments.iter().filter(|a| mine(a)).any(|a| {
                    !matches!(Binding::decode(&a.value).0, Binding::Names | Binding::Type)
                });
            let called_on = self.calls.iter().any(|c| c.callee_head == list);
            let mut names = std::collections::BTreeSet::new();
            for a in self.assignments.iter().filter(|a| mine(a) && is_list(a)) {
                names.extend(
                    Binding::decode(&a.value)
                        .1
                        .split(' ')
                        .filter(|n| !n.is_empty())
                        .map(str::to_string),
                );
            }
            let unread = self.symbols_end_line.is_some();
            let any = other_binding || called_on || unread || names.contains(ANY_NAME);
            let names = if any {
                ANY_NAME.to_string()
            } else {
                names.into_iter().collect::<Vec<_>>().join(" ")
            };
            // The first list's row holds them all; the others go.
            let mut settled = false;
            self.assignments.retain_mut(|a| {
                if !(mine(a) && is_list(a)) {
                    return true;
                }
                if settled {
                    return false;
                }
                settled = true;
                a.value = Binding::Names.encode(&names);
                true
            });
        }
    }

    /// Adds the facts of a later part of the same file: its indices into
    /// definitions move past the ones already here.
    pub(super) fn append(&mut self, part: FileFacts) {
        let offset = self.definitions.len();
        let moved = |i: Option<usize>| i.map(|i| i + offset);
        self.definitions
            .extend(part.definitions.into_iter().map(|d| Definition {
                parent: moved(d.parent),
                ..d
            }));
        self.calls.extend(part.calls.into_iter().map(|c| Call {
            enclosing: moved(c.enclosing),
            ..c
        }));
        self.assignments
            .extend(part.assignments.into_iter().map(|a| Assignment {
                enclosing: moved(a.enclosing),
                ..a
            }));
        self.imports.extend(part.imports);
        self.has_syntax_errors |= part.has_syntax_errors;
    }
}

/// The stored form of a call's arguments: unit-separated, `None` for none.
pub fn encode_arguments(arguments: &[String]) -> Option<String> {
    (!arguments.is_empty()).then(|| arguments.join("\u{1f}"))
}

/// The arguments from their stored form.
pub fn decode_arguments(stored: &str) -> impl Iterator<Item = &str> {
    stored.split('\u{1f}')
}

/// At most this many arguments of a call are kept.
pub(super) const MAX_ARGUMENTS: usize = 16;

#[cfg(test)]
mod tests {
    use super::Binding;

    #[test]
    fn every_binding_reads_back_as_written() {
        for (binding, expression) in [
            (Binding::CallResult, "make"),
            (Binding::Alias, "a.run"),
            (Binding::Type, "Repo"),
            (Binding::Parameter, "2"),
            (Binding::Callback, "0.1.operate"),
            (Binding::Callback, "1.0.this.schedule"),
            (Binding::Names, "Index other"),
            (Binding::Names, ""),
        ] {
            assert_eq!(
                Binding::decode(&binding.encode(expression)),
                (binding, expression)
            );
        }
        // Text that only looks like a callback is an expression (Ruby's `%w[a b]`).
        assert_eq!(Binding::decode("%w[a b]"), (Binding::Alias, "%w[a b]"));
        assert_eq!(Binding::decode("%1.x"), (Binding::Alias, "%1.x"));
    }

    /// The stored `__all__` of `source`, read as Python.
    fn names_list(source: &str) -> Vec<String> {
        let spec = crate::lang::by_name("python").unwrap();
        let facts = super::super::extract(spec, "m.py", source);
        let lists = facts.assignments.iter();
        let lists = lists.filter(|a| Binding::decode(&a.value).0 == Binding::Names);
        lists.map(|a| a.value.clone()).collect()
    }

    #[test]
    fn a_modules_all_is_read_as_literals_or_not_at_all() {
        let list = |source: &str| names_list(source);
        assert_eq!(list("__all__ = ['b', \"a\"]  # x\n"), ["=a b"]);
        assert_eq!(list("__all__ = ('a',)\n__all__ += ['c']\n"), ["=a c"]);
        assert_eq!(list("__all__: list[str] = []\n"), ["="]);
        // What the literals cannot say: every name counts.
        assert_eq!(list("__all__ = one.__all__ + two.__all__\n"), ["=*"]);
        assert_eq!(list("__all__ = ['a', name]\n"), ["=*"]);
        assert_eq!(list("__all__ = [f'{x}']\n"), ["=*"]);
        assert_eq!(list("__all__ = ['a']\n__all__.append('b')\n"), ["=*"]);
        assert_eq!(list("__all__ = ['a']\n__all__ = names()\n"), ["=*"]);
        // Only the module's own: a function's local `__all__` is none.
        assert!(list("def f():\n    __all__ = ['a']\n").is_empty());
    }
}
