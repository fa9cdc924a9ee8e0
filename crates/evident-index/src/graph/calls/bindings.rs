//! Where names are bound: a file's stored bindings, a class's attributes,
//! the types a written type names, and what one binding holds.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::pass::*;
use crate::evidence::Kind;
use crate::lang::extract::Binding;
use crate::lang::extract::{ELEMENTS, TYPE_ALIAS};
use crate::store::graph as rows;

/// Type aliases followed at most this deep (`type A = B; type B = C | D`).
const MAX_ALIAS_DEPTH: usize = 4;

impl Graph<'_> {
    /// A file's bindings, read once.
    pub(super) fn bindings_of_file(&self, file: i64) -> Rc<FileBindings> {
        if let Some(found) = self.file_bindings.borrow().get(&file) {
            return found.clone();
        }
        let mut bindings = FileBindings::default();
        let read = rows::for_each_assignment_in(self.conn, file, |enclosing, name, value| {
            bindings
                .entry(enclosing)
                .or_default()
                .entry(name)
                .or_default()
                .push(Rc::from(value));
        });
        if let Err(e) = read {
            self.read_error.borrow_mut().get_or_insert(e);
        }
        let bindings = Rc::new(bindings);
        self.file_bindings
            .borrow_mut()
            .insert(file, bindings.clone());
        bindings
    }

    /// The bindings of `name` made directly in `scope` of `file`.
    pub(super) fn bound_in(
        &self,
        file: i64,
        scope: Option<i64>,
        name: &str,
    ) -> Option<Vec<Rc<str>>> {
        self.bindings_of_file(file).get(&scope)?.get(name).cloned()
    }

    /// A class's attributes: `self.x = ...` in its methods and the names its
    /// body binds, with the scope each binding is evaluated in.
    pub(super) fn attributes_of(&self, class: i64) -> Rc<Attributes> {
        if let Some(found) = self.attributes.borrow().get(&class) {
            return found.clone();
        }
        let Some(file) = self.symbol(class).map(|c| c.file) else {
            return Rc::default();
        };
        if !self.attribute_files.borrow_mut().insert(file) {
            return Rc::default(); // the file was read: the class has none
        }
        // Every class of the file at once: one pass over its bindings.
        let lang = self.lang_of(file);
        let bindings = self.bindings_of_file(file);
        let mut by_class: FxHashMap<i64, Attributes> = FxHashMap::default();
        for (scope, names) in bindings.iter() {
            let scope_class =
                scope.filter(|s| self.symbol(*s).is_some_and(|s| s.kind.is_class_like()));
            let mut owner: Option<Option<i64>> = None;
            for (name, values) in names {
                let (class, attribute) = match name.split_once('.') {
                    Some((head, attribute))
                        if lang.is_some_and(|l| l.self_receivers.contains(&head)) =>
                    {
                        let owner = *owner.get_or_insert_with(|| match self.owner_class(*scope) {
                            Some((Some(c), _)) => Some(c),
                            _ => None,
                        });
                        match owner {
                            Some(c) => (c, attribute),
                            None => continue,
                        }
                    }
                    None => match scope_class {
                        Some(c) => (c, name.as_str()),
                        None => continue,
                    },
                    _ => continue,
                };
                by_class
                    .entry(class)
                    .or_default()
                    .entry(attribute.to_string())
                    .or_default()
                    .extend(values.iter().map(|v| (file, *scope, v.to_string())));
            }
        }
        let mut cache = self.attributes.borrow_mut();
        for (c, mut attributes) in by_class {
            for slot in attributes.values_mut() {
                slot.sort();
            }
            cache.insert(c, Rc::new(attributes));
        }
        cache.get(&class).cloned().unwrap_or_default()
    }

    /// Classes a written type names: each identifier in it (`Optional[Repo]`,
    /// `*Store`, `"Conn"`, `Self`) that resolves to a class-like definition in
    /// the repository by scope or import (never by name alone).
    pub(super) fn types_named(&self, file: i64, scope: Option<i64>, ty: &str) -> Vec<i64> {
        self.types_named_within(file, scope, ty, 0)
    }

    /// [`Self::types_named`], through type aliases (`type P = A | B` names
    /// `A` and `B`) at most [`MAX_ALIAS_DEPTH`] deep.
    fn types_named_within(
        &self,
        file: i64,
        scope: Option<i64>,
        ty: &str,
        depth: usize,
    ) -> Vec<i64> {
        let Some(lang) = self.lang_of(file) else {
            return Vec::new();
        };
        let outer = ty.split('[').next().unwrap_or("");
        if lang
            .function_types
            .contains(&crate::lang::extract::last_identifier(outer))
        {
            return Vec::new();
        }
        let mut classes = Vec::new();
        let tokens = ty.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == ':'));
        for token in tokens.map(|t| t.trim_matches(|c| c == '.' || c == ':')) {
            if token.is_empty() || token.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            if lang.class_names.contains(&token) {
                match self.owner_class(scope) {
                    Some((Some(class), _)) => classes.push(class),
                    // A Rust `impl` method: the type its qualified name names.
                    Some((None, owner)) => classes.extend(
                        self.resolve_bare(file, None, &owner)
                            .into_iter()
                            .filter_map(|(id, _)| match self.value_of_definition(id) {
                                Value::Class(class) => Some(class),
                                _ => None,
                            }),
                    ),
                    None => {}
                }
                continue;
            }
            for value in self.values_of_expr(file, scope, token) {
                match value {
                    Value::Class(class) => classes.push(class),
                    Value::Callable(alias) if depth < MAX_ALIAS_DEPTH => {
                        // An object type alias has members of its own.
                        if self.symbol(alias).is_some_and(|s| s.kind == Kind::Type) {
                            classes.push(alias);
                        }
                        classes.extend(self.aliased_types(alias, depth + 1));
                    }
                    _ => {}
                }
            }
        }
        classes.sort_unstable();
        classes.dedup();
        classes
    }

    /// The classes a type alias stands for (none for anything else).
    fn aliased_types(&self, alias: i64, depth: usize) -> Vec<i64> {
        let Some(s) = self.symbol(alias).filter(|s| s.kind == Kind::Type) else {
            return Vec::new();
        };
        // The alias's own binding: it encloses its declaration.
        let (file, scope) = (s.file, Some(alias));
        let stored = self.bound_in(file, scope, &format!("{TYPE_ALIAS}{}", s.name));
        let mut classes = Vec::new();
        for stored in stored.unwrap_or_default() {
            if let (Binding::Type, ty) = Binding::decode(&stored) {
                classes.extend(self.types_named_within(file, scope, ty, depth));
            }
        }
        classes
    }

    /// A resolved definition as a value: a class (a constructor stands for
    /// its class), or something callable.
    pub(super) fn value_of_definition(&self, id: i64) -> Value {
        let Some(s) = self.symbol(id) else {
            return Value::Callable(id);
        };
        if s.kind.is_class_like() {
            return Value::Class(id);
        }
        let Some(lang) = self.lang_of(s.file) else {
            return Value::Callable(id);
        };
        let class = s.parent.filter(|p| {
            self.symbol(*p).is_some_and(|c| {
                c.kind.is_class_like()
                    && lang
                        .constructors
                        .iter()
                        .any(|k| *k == &*s.name || *k == "$class" && c.name == s.name)
            })
        });
        class.map_or(Value::Callable(id), Value::Class)
    }

    /// The bindings of `name` visible from `scope`: those of the innermost
    /// enclosing scope that binds it (class bodies only where members are
    /// reached without `this`, or from the body itself where it is a scope),
    /// out to the file's top level.
    pub(super) fn bindings(
        &self,
        file: i64,
        scope: Option<i64>,
        name: &str,
    ) -> Vec<(Option<i64>, Rc<str>)> {
        let implicit_this = self.lang_of(file).is_some_and(|l| l.implicit_this);
        let body_is_scope = self.lang_of(file).is_some_and(|l| l.class_body_is_scope);
        let mut at = scope;
        loop {
            let visible = match at.and_then(|id| self.symbol(id)) {
                Some(s) => !s.kind.is_class_like() || implicit_this || body_is_scope && at == scope,
                None => true,
            };
            if visible {
                if let Some(values) = self.bound_in(file, at, name) {
                    // Bound this many times (minified code reuses one
                    // letter), the name says nothing about a type.
                    let most = if name.ends_with(ELEMENTS) {
                        MAX_ELEMENTS
                    } else {
                        MAX_BINDINGS
                    };
                    if values.len() > most {
                        return vec![(at, Rc::from("?"))];
                    }
                    return values.into_iter().map(|v| (at, v)).collect();
                }
                // An implicit `this` reaches the members of the bases too.
                if let Some(class) = at.filter(|_| implicit_this) {
                    if self.symbol(class).is_some_and(|s| s.kind.is_class_like()) {
                        let inherited = self.member_of_bases(class, name);
                        if !inherited.is_empty() {
                            return inherited;
                        }
                    }
                }
            }
            match at {
                Some(id) => at = self.symbol(id).and_then(|s| s.parent),
                None if implicit_this => return self.member_of_owner(scope, name),
                None => return Vec::new(),
            }
        }
    }

    /// In a method defined outside its class (`void Builder::Build() {
    /// fs_.Create(); }`), a bare name the class declares: the members
    /// `fs_` has in every class of the caller's language named `Builder`.
    pub(super) fn member_of_owner(
        &self,
        scope: Option<i64>,
        name: &str,
    ) -> Vec<(Option<i64>, Rc<str>)> {
        let mut at = scope;
        let method = loop {
            match at.and_then(|id| self.symbol(id).map(|s| (id, s))) {
                Some((_, s)) if s.kind == Kind::Method && s.qualified_name.is_some() => break s,
                Some((_, s)) => at = s.parent,
                None => return Vec::new(),
            }
        };
        let Some(owner) = self.owner_from_qualified(method) else {
            return Vec::new();
        };
        let family = self.family(method.file);
        let mut found = Vec::new();
        for class in self.table.named(owner.as_str()).iter() {
            let Some(c) = self.symbol(*class) else {
                continue;
            };
            if !c.kind.is_class_like() || !self.of_family(*class, family) {
                continue;
            }
            match self.bound_in(c.file, Some(*class), name) {
                Some(values) => found.extend(values.into_iter().map(|v| (Some(*class), v))),
                None => found.extend(self.member_of_bases(*class, name)),
            }
        }
        found.truncate(MAX_BINDINGS);
        found
    }

    /// The first base of `class` (in method resolution order) that declares
    /// `name`: its bindings of it.
    pub(super) fn member_of_bases(&self, class: i64, name: &str) -> Vec<(Option<i64>, Rc<str>)> {
        for base in self.linearization(class).into_iter().skip(1) {
            let Some(file) = self.symbol(base).map(|b| b.file) else {
                continue;
            };
            if let Some(values) = self.bound_in(file, Some(base), name) {
                return values.into_iter().map(|v| (Some(base), v)).collect();
            }
        }
        Vec::new()
    }

    /// What one stored binding makes its name: see [`Binding`].
    pub(super) fn values_of_binding(
        &self,
        file: i64,
        scope: Option<i64>,
        stored: &str,
    ) -> Vec<Value> {
        match Binding::decode(stored) {
            (Binding::Type, ty) => {
                let classes = self.types_named(file, scope, ty);
                if classes.is_empty() {
                    self.outside_type(file, scope, ty).into_iter().collect()
                } else {
                    classes.into_iter().map(Value::Instance).collect()
                }
            }
            (Binding::CallResult, callee) => self.call_results(file, scope, callee),
            (Binding::Alias, expression) => self.values_of_expr(file, scope, expression),
            (Binding::Opaque | Binding::Names, _) => Vec::new(),
            (Binding::Callback, callback) => self.callback_parameter(file, scope, callback),
            (Binding::Parameter, position) => match (scope, position.parse::<usize>()) {
                (Some(function), Ok(position)) => self.argument_values(function, position),
                _ => Vec::new(),
            },
        }
    }
}
