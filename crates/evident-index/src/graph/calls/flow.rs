//! The types that flow: what a name, an attribute or a call's result holds,
//! evaluated from the bindings extraction stored (see `Binding` and
//! ARCHITECTURE.md, "The model of types"). Flow-insensitive and per project;
//! complete evaluations are remembered for the pass, cut ones are not.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::*;
use crate::lang::extract::{DECORATED, ELEMENTS};

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
        let Some(lang) = self.lang_of(file) else {
            return Vec::new();
        };
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
                if let Value::Class(class) = value {
                    classes.push(class);
                }
            }
        }
        classes.sort_unstable();
        classes.dedup();
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
    fn member_of_owner(&self, scope: Option<i64>, name: &str) -> Vec<(Option<i64>, Rc<str>)> {
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
    fn member_of_bases(&self, class: i64, name: &str) -> Vec<(Option<i64>, Rc<str>)> {
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
            (Binding::Opaque, _) => Vec::new(),
            (Binding::Parameter, position) => match (scope, position.parse::<usize>()) {
                (Some(function), Ok(position)) => self.argument_values(function, position),
                _ => Vec::new(),
            },
        }
    }

    /// Runs `f` one level deeper into the flow, or returns nothing past the limit.
    pub(super) fn deeper(&self, f: impl FnOnce() -> Vec<Value>) -> Vec<Value> {
        let depth = self.flow_depth.get();
        if depth >= MAX_FLOW_DEPTH {
            self.truncated.set(true);
            return Vec::new();
        }
        self.flow_depth.set(depth + 1);
        let mut values = f();
        self.flow_depth.set(depth);
        values.sort_unstable();
        values.dedup();
        values
    }

    /// What calling `callee` gives back: an instance of a class called, what
    /// a function called returns.
    pub(super) fn call_results(&self, file: i64, scope: Option<i64>, callee: &str) -> Vec<Value> {
        self.deeper(|| {
            let mut results = Vec::new();
            for value in self.values_of_expr(file, scope, callee) {
                match value {
                    Value::Class(class) => results.push(Value::Instance(class)),
                    Value::Callable(function) => results.extend(self.returns(function)),
                    Value::Outside(id) => {
                        let (name, kind) = self.outside_name(id);
                        results.extend(self.outside_value(format!("{name}()"), kind));
                    }
                    Value::Instance(_) => {}
                }
            }
            results
        })
    }

    /// A remembered evaluation of `key`: from the pass's cache, or from
    /// the cache of evaluations that hold for the current call's file only
    /// (they used argument flow), noting what those used.
    fn cached<K: std::hash::Hash + Eq>(
        &self,
        cache: &std::cell::RefCell<FxHashMap<K, Vec<Value>>>,
        local: &std::cell::RefCell<FxHashMap<K, Remembered>>,
        key: &K,
    ) -> Option<Vec<Value>> {
        if let Some(values) = cache.borrow().get(key) {
            return Some(values.clone());
        }
        if self.resolving_site.get() {
            return None; // what holds with argument flow is not for a call that binds it
        }
        let local = local.borrow();
        let (values, functions) = local.get(key)?;
        self.consumer_bound.set(true);
        self.note_arguments_used(functions);
        Some(values.clone())
    }

    /// `compute()`, remembered under `key` when it was complete (nothing
    /// cut it short), so a remembered value never depends on where it was
    /// first asked for: in `cache` for the pass, or in `local` for the
    /// current call's file when it depends on that file (argument flow).
    pub(super) fn remembered<K: std::hash::Hash + Eq>(
        &self,
        cache: &std::cell::RefCell<FxHashMap<K, Vec<Value>>>,
        local: &std::cell::RefCell<FxHashMap<K, Remembered>>,
        key: K,
        compute: impl FnOnce() -> Vec<Value>,
    ) -> Vec<Value> {
        if let Some(values) = self.cached(cache, local, &key) {
            return values;
        }
        let outer_cut = self.truncated.replace(false);
        let outer_bound = self.consumer_bound.replace(false);
        let outer_used = self.arguments_used.replace(Vec::new());
        let values = compute();
        let cut = self.truncated.replace(outer_cut);
        let bound = self.consumer_bound.replace(outer_bound);
        let used = self.arguments_used.replace(outer_used);
        self.truncated.set(outer_cut || cut);
        self.consumer_bound.set(outer_bound || bound);
        self.note_arguments_used(&used);
        if !cut {
            if bound {
                local.borrow_mut().insert(key, (values.clone(), used));
            } else {
                cache.borrow_mut().insert(key, values.clone());
            }
        }
        values
    }

    /// Records that the call being resolved used the parameters of functions
    /// named `functions` (their calls in its file bind them).
    fn note_arguments_used(&self, functions: &[Rc<str>]) {
        if functions.is_empty() {
            return;
        }
        let mut used = self.arguments_used.borrow_mut();
        for name in functions {
            if !used.contains(name) {
                used.push(name.clone());
            }
        }
    }

    /// Forgets the evaluations that held for one file's calls only.
    pub(super) fn start_consumer_file(&self, file: i64) {
        if self.consumer_file.replace(Some(file)) != Some(file) {
            self.local_expr_cache.borrow_mut().clear();
            self.local_returns_cache.borrow_mut().clear();
        }
        self.arguments_used.borrow_mut().clear();
    }

    /// What a function returns or yields, by its return type and its `return`s.
    pub(super) fn returns(&self, function: i64) -> Vec<Value> {
        self.remembered(
            &self.returns_cache,
            &self.local_returns_cache,
            function,
            || self.returns_uncached(function),
        )
    }

    pub(super) fn returns_uncached(&self, function: i64) -> Vec<Value> {
        let Some(s) = self.symbol(function) else {
            return Vec::new();
        };
        let Some(returns) = self.bound_in(s.file, Some(function), "return") else {
            return Vec::new();
        };
        let mut values: Vec<Value> = returns
            .iter()
            .flat_map(|stored| self.values_of_binding(s.file, Some(function), stored))
            .collect();
        // A declared type says it all; `return` statements add to a missing one.
        let instance = |v: &Value| matches!(v, Value::Instance(_) | Value::Outside(_));
        if values.iter().any(instance) {
            values.retain(instance);
        }
        values
    }

    /// What an expression without calls (`x`, `self.store`, `mod.f`) is.
    pub(super) fn values_of_expr(
        &self,
        file: i64,
        scope: Option<i64>,
        expression: &str,
    ) -> Vec<Value> {
        let key: ExprKey = (file, scope, Box::from(expression.trim()));
        if self.in_progress.borrow().contains(&key) {
            self.truncated.set(true); // a cycle: `x = x.copy()`
            return Vec::new();
        }
        if let Some(values) = self.cached(&self.expr_cache, &self.local_expr_cache, &key) {
            return values;
        }
        self.in_progress.borrow_mut().insert(key.clone());
        let values = self.remembered(
            &self.expr_cache,
            &self.local_expr_cache,
            key.clone(),
            || self.values_of_expr_uncached(file, scope, expression),
        );
        self.in_progress.borrow_mut().remove(&key);
        values
    }

    pub(super) fn values_of_expr_uncached(
        &self,
        file: i64,
        scope: Option<i64>,
        expression: &str,
    ) -> Vec<Value> {
        let Some(lang) = self.lang_of(file) else {
            return Vec::new();
        };
        let expression = expression.trim();
        if let Some(open) = expression.find('(') {
            // `f(...).attr`: attributes of what the call gives back.
            // A `)` only before the `(` (text from a string or an asm
            // template, `")@(" getuser`): not a call's result.
            let Some(close) = expression.rfind(')').filter(|close| *close > open) else {
                return Vec::new();
            };
            let rest = expression[close + 1..].trim_start_matches('.');
            let callee = &expression[..open];
            if callee.contains('[') || expression[open..close].contains(')') && rest.is_empty() {
                return Vec::new();
            }
            let mut values = self.call_results(file, scope, callee.trim());
            for attribute in rest.split('.').filter(|a| !a.is_empty()) {
                values = self.attribute_values(&values, attribute, true);
            }
            return values;
        }
        if let Some(container) = container_of_element(expression) {
            // `OPS[name]`, `steps[]`: what the container's elements hold.
            let elements = format!("{container}{ELEMENTS}");
            return self.deeper(|| {
                let mut sites: Vec<(i64, Option<i64>, Rc<str>)> = self
                    .bindings(file, scope, &elements)
                    .into_iter()
                    .map(|(at, stored)| (file, at, stored))
                    .collect();
                if sites.is_empty() {
                    // A container defined elsewhere: `from ops import OPS`.
                    for (id, _) in self.resolve_as_written(file, scope, container) {
                        let Some(v) = self.symbol(id) else {
                            continue;
                        };
                        if matches!(v.kind, Kind::Variable | Kind::Constant | Kind::Property) {
                            let bound = self.bound_in(v.file, v.parent, &elements);
                            sites
                                .extend(bound.into_iter().flatten().map(|b| (v.file, v.parent, b)));
                        }
                    }
                }
                if sites.is_empty() {
                    // No elements recorded: a declared container type's
                    // classes (`items: Array<Item>`) are what it holds.
                    let mut held = self.values_of_expr(file, scope, container);
                    held.retain(|v| matches!(v, Value::Instance(_)));
                    return held;
                }
                sites
                    .iter()
                    .flat_map(|(file, at, stored)| self.values_of_binding(*file, *at, stored))
                    .collect()
            });
        }
        if expression.contains('[') {
            return Vec::new();
        }
        let normalized = expression.replace("::", ".").replace("?.", ".");
        let segments: Vec<&str> = normalized.split('.').filter(|s| !s.is_empty()).collect();
        let Some((&head, rest)) = segments.split_first() else {
            return Vec::new();
        };
        self.deeper(|| {
            let mut values: Vec<Value> = Vec::new();
            let mut consumed = 1;
            if lang.self_receivers.contains(&head) {
                if let Some((Some(class), _)) = self.owner_class(scope) {
                    values.push(Value::Instance(class));
                }
            } else {
                let bindings = self.bindings(file, scope, head);
                for (at, stored) in bindings {
                    values.extend(self.values_of_binding(file, at, &stored));
                }
            }
            let unbound = values.is_empty();
            if unbound {
                // Not a binding: resolve the longest written prefix as
                // definitions (imports, modules, classes and their members).
                for take in (1..=segments.len()).rev() {
                    let prefix = segments[..take].join(lang.separator);
                    let found: Vec<Value> = self
                        .resolve_as_written(file, scope, &prefix)
                        .into_iter()
                        .filter(|(_, c)| *c != Confidence::NameOnly)
                        .map(|(id, _)| self.value_of_definition(id))
                        .collect();
                    if !found.is_empty() {
                        values = found;
                        consumed = take;
                        break;
                    }
                }
            }
            if values.is_empty() && unbound && !lang.self_receivers.contains(&head) {
                // Nothing in the repository: an import from outside, a builtin.
                return self
                    .outside_named(file, scope, &segments)
                    .into_iter()
                    .collect();
            }
            let last = segments.len().saturating_sub(1);
            for (i, attribute) in rest.iter().enumerate().skip(consumed - 1) {
                values = self.attribute_values(&values, attribute, i + 1 < last);
            }
            values
        })
    }

    /// The values of `attribute` on each of `values`: bindings of the
    /// attribute in the class and its bases, else its method (through its
    /// return when more attributes follow: a property).
    pub(super) fn attribute_values(
        &self,
        values: &[Value],
        attribute: &str,
        more_follow: bool,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        for value in values {
            let class = match *value {
                Value::Instance(class) | Value::Class(class) => class,
                Value::Outside(id) => {
                    let (name, kind) = self.outside_name(id);
                    out.extend(self.outside_value(format!("{name}.{attribute}"), kind));
                    continue;
                }
                Value::Callable(_) => continue,
            };
            for class in self.linearization(class) {
                let attributes = self.attributes_of(class);
                if let Some(bound) = attributes.get(attribute) {
                    for (file, scope, stored) in bound {
                        out.extend(self.values_of_binding(*file, *scope, stored));
                    }
                    break;
                }
                if let Some(methods) = self.child(class, attribute) {
                    for method in methods {
                        match self.value_of_definition(*method) {
                            Value::Callable(f) if more_follow => out.extend(self.returns(f)),
                            value => out.push(value),
                        }
                    }
                    break;
                }
            }
            // An attribute the class lacks is not taken from a base outside:
            // data attributes are often set from elsewhere (`setUp` helpers,
            // decorators), unlike the methods `method_of_outside_value` names.
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Method `method` of each class among `values`, as inferred edges.
    pub(super) fn methods_of_values(
        &self,
        values: &[Value],
        method: &str,
    ) -> Vec<(i64, Confidence)> {
        let mut found = Vec::new();
        for value in values {
            let (Value::Instance(class) | Value::Class(class)) = *value else {
                continue;
            };
            let Some(owner) = self.symbol(class).map(|c| c.name.to_string()) else {
                continue;
            };
            found.extend(
                self.method_of(Some(class), &owner, method, false, 0)
                    .into_iter()
                    .map(|(id, _)| (id, Confidence::Inferred)),
            );
        }
        found
    }

    /// A bare call of a name bound inside a function (not at the top level,
    /// where the name is a definition of its own): what the binding holds,
    /// which may be nothing known.
    pub(super) fn called_through_local(
        &self,
        file: i64,
        enclosing: Option<i64>,
        name: &str,
    ) -> Option<Vec<(i64, Confidence)>> {
        let bindings = self.bindings(file, enclosing, name);
        if bindings.is_empty() || bindings.iter().all(|(scope, _)| scope.is_none()) {
            return None;
        }
        let mut values = Vec::new();
        for (scope, stored) in bindings {
            values.extend(self.values_of_binding(file, scope, &stored));
        }
        // Bound here to something unknown, the name still hides the module's.
        Some(self.callables(&values))
    }

    /// What calling each value runs: a class's constructor, a function, an
    /// instance's call method (`__call__`) where the language has one.
    pub(super) fn callables(&self, values: &[Value]) -> Vec<(i64, Confidence)> {
        let mut found = Vec::new();
        for value in values {
            match *value {
                Value::Class(class) => {
                    found.push((self.constructor_of(class), Confidence::Inferred))
                }
                Value::Callable(function) => found.push((function, Confidence::Inferred)),
                Value::Instance(class) => {
                    let Some(c) = self.symbol(class) else {
                        continue;
                    };
                    let Some(method) = self.lang_of(c.file).and_then(|l| l.call_method) else {
                        continue;
                    };
                    let owner = c.name.to_string();
                    found.extend(
                        self.method_of(Some(class), &owner, method, false, 0)
                            .into_iter()
                            .map(|(id, _)| (id, Confidence::Inferred)),
                    );
                }
                Value::Outside(_) => {}
            }
        }
        found
    }

    /// A call that reached a variable (`shortcut = original`, `W = Widget`)
    /// reaches what the variable holds, when that is known.
    pub(super) fn through_variables(
        &self,
        found: Vec<(i64, Confidence)>,
    ) -> Vec<(i64, Confidence)> {
        self.through_bindings(found, |s| {
            matches!(s.kind, Kind::Variable | Kind::Constant | Kind::Property)
                .then(|| s.name.to_string())
        })
    }

    /// A call that reached a decorated function runs what its decorators
    /// return (`@d def f` is `f = d(f)`, see `DECORATED`) when that is
    /// known and callable: a wrapper. A decorator that returns what it is
    /// given, one from outside, or one whose result is unknown leaves the
    /// call on the function.
    pub(super) fn through_decorators(
        &self,
        found: Vec<(i64, Confidence)>,
    ) -> Vec<(i64, Confidence)> {
        self.through_bindings(found, |s| {
            matches!(s.kind, Kind::Function | Kind::Method)
                .then(|| format!("{DECORATED}{}", s.name))
        })
    }

    /// Each target replaced by what the binding `binding_of` names for it
    /// (beside it, in its parent's scope) holds, when that is known,
    /// callable and not the target itself.
    fn through_bindings(
        &self,
        found: Vec<(i64, Confidence)>,
        binding_of: impl Fn(&Symbol) -> Option<String>,
    ) -> Vec<(i64, Confidence)> {
        let mut out = Vec::with_capacity(found.len());
        for (id, confidence) in found {
            let bound = self.symbol(id).and_then(|s| {
                let bound = self.bound_in(s.file, s.parent, &binding_of(s)?)?;
                Some((s.file, s.parent, bound))
            });
            let held: Vec<(i64, Confidence)> = match bound {
                Some((file, scope, bound)) => {
                    let values = self.deeper(|| {
                        bound
                            .iter()
                            .flat_map(|stored| self.values_of_binding(file, scope, stored))
                            .collect()
                    });
                    let mut held = self.callables(&values);
                    held.retain(|(held, _)| *held != id);
                    held
                }
                None => Vec::new(),
            };
            if held.is_empty() {
                out.push((id, confidence));
            } else {
                out.extend(held);
            }
        }
        out
    }

    /// What `receiver.attribute` names, for `def` at an attribute that is
    /// not called: definitions (a method, a class attribute, a module's
    /// top-level name) and the bindings `(file, scope, stored value)` of
    /// attributes assigned in methods (`self.store = ...`).
    pub(crate) fn attribute_targets(
        &self,
        file: i64,
        scope: Option<i64>,
        receiver: &str,
        attribute: &str,
    ) -> (Vec<i64>, Vec<BindingSite>) {
        let (mut ids, mut sites) = (Vec::new(), Vec::new());
        let values = self.values_of_expr(file, scope, receiver);
        for value in &values {
            let (Value::Instance(class) | Value::Class(class)) = *value else {
                continue;
            };
            for class in self.linearization(class) {
                if let Some(found) = self.child(class, attribute) {
                    ids.extend(found);
                    break;
                }
                if let Some(bound) = self.attributes_of(class).get(attribute) {
                    sites.extend(bound.iter().cloned());
                    break;
                }
            }
        }
        if values.is_empty() {
            // A module or a class named by the receiver: its member, as a call would reach it.
            ids.extend(
                self.resolve_as_written(file, scope, &format!("{receiver}.{attribute}"))
                    .into_iter()
                    .filter(|(_, c)| *c != Confidence::NameOnly)
                    // `models.Model`: the class the name names, not its constructor.
                    .map(|(id, _)| match self.value_of_definition(id) {
                        Value::Class(class)
                            if self.symbol(class).is_some_and(|c| *c.name == *attribute) =>
                        {
                            class
                        }
                        _ => id,
                    }),
            );
        }
        ids.sort_unstable();
        ids.dedup();
        sites.sort();
        sites.dedup();
        (ids, sites)
    }

    /// The interned value for something outside the repository reached as
    /// `name`; `None` past a sane length (a chain that only grows).
    pub(super) fn outside_value(&self, name: String, kind: &'static str) -> Option<Value> {
        const MAX_OUTSIDE_NAME: usize = 200;
        if name.len() > MAX_OUTSIDE_NAME {
            return None;
        }
        let mut table = self.outside_values.borrow_mut();
        let key = (Rc::<str>::from(name), kind);
        if let Some(id) = table.ids.get(&key) {
            return Some(Value::Outside(*id));
        }
        let id = table.names.len() as u32;
        table.names.push(key.clone());
        table.ids.insert(key, id);
        Some(Value::Outside(id))
    }

    pub(super) fn outside_name(&self, id: u32) -> (Rc<str>, &'static str) {
        self.outside_values.borrow().names[id as usize].clone()
    }

    /// `segments` as something outside the repository: bound by an import no
    /// repository file satisfies, or the language's builtin (not rebound).
    pub(super) fn outside_named(
        &self,
        file: i64,
        scope: Option<i64>,
        segments: &[&str],
    ) -> Option<Value> {
        let lang = self.lang_of(file)?;
        if let Some(name) = self.imported_from_outside(file, segments) {
            return self.outside_value(name, "external");
        }
        let head = *segments.first()?;
        let data_type = lang.builtin_types.contains(&head);
        (data_type && self.bindings(file, scope, head).is_empty())
            .then(|| self.outside_value(segments.join(lang.separator), "builtin"))
            .flatten()
    }

    /// A declared type that names something outside the repository as a
    /// whole (`x: StringIO`, `List<String>`, a literal's `list`): an
    /// instance of it. Compound types (`Optional[Repo]`) say nothing here.
    pub(super) fn outside_type(&self, file: i64, scope: Option<i64>, ty: &str) -> Option<Value> {
        let outer = ty.split('<').next().unwrap_or("").trim();
        let simple = !outer.is_empty()
            && outer
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == ':');
        if !simple {
            return None;
        }
        let normalized = outer.replace("::", ".");
        let segments: Vec<&str> = normalized.split('.').filter(|s| !s.is_empty()).collect();
        self.outside_named(file, scope, &segments)
    }

    /// Whether every value is known to lead outside the repository for a
    /// method it lacks: an outside value, or a class with a base outside.
    pub(super) fn all_lead_outside(&self, values: &[Value]) -> bool {
        !values.is_empty()
            && values.iter().all(|v| match *v {
                Value::Outside(_) => true,
                Value::Instance(class) | Value::Class(class) => {
                    self.outside_base_cached(class).is_some()
                }
                Value::Callable(_) => false,
            })
    }

    /// `receiver.method` where the receiver is known to come from outside
    /// the repository: a string literal (`", ".join`), an outside value
    /// (`out = StringIO(); out.getvalue()`), or an instance of a class whose
    /// base outside provides the method.
    pub(super) fn method_of_outside_value(
        &self,
        file: i64,
        enclosing: Option<i64>,
        callee: &str,
    ) -> Option<(String, &'static str)> {
        let lang = self.lang_of(file)?;
        let (receiver, method) = callee.rsplit_once('.')?;
        let receiver = receiver.trim().trim_end_matches('?');
        if method.is_empty() || !method.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        if is_string_literal(receiver) {
            let ty = lang.string_type?;
            return Some((format!("{ty}{}{method}", lang.separator), "builtin"));
        }
        if lang.self_receivers.contains(&receiver) || lang.base_receivers.contains(&receiver) {
            return None;
        }
        let values = self.values_of_expr(file, enclosing, receiver);
        if !self.all_lead_outside(&values) {
            return None;
        }
        let (name, kind) = self.first_outside_name(&values)?;
        Some((format!("{name}{}{method}", lang.separator), kind))
    }

    /// What outside the repository `values` lead to, named: of several, the
    /// first by name, so that every run names the same whatever order it
    /// met them in (interned ids follow the order calls are resolved in,
    /// which a resumed run or a branch switch changes).
    pub(super) fn first_outside_name(&self, values: &[Value]) -> Option<(Rc<str>, &'static str)> {
        values
            .iter()
            .filter_map(|v| match *v {
                Value::Outside(id) => Some(self.outside_name(id)),
                Value::Instance(class) | Value::Class(class) => {
                    Some((Rc::from(self.outside_base_cached(class)?), "external"))
                }
                Value::Callable(_) => None,
            })
            .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
    }

    /// What the parameter at `position` of `function` is given by the calls
    /// of the function in its own file (argument flow): positional and
    /// keyword arguments, one level deep (the calls and their arguments are
    /// evaluated without argument flow, so a recursive function ends).
    /// Only for a call in that same file, so that the calls to resolve again
    /// after an edit stay in one file (`argument_calls`); what depends on it
    /// is remembered for that file's calls only.
    pub(super) fn argument_values(&self, function: i64, position: usize) -> Vec<Value> {
        let Some(f) = self.symbol(function) else {
            return Vec::new();
        };
        // Most functions are not called in their own file: their parameters
        // are bound by nothing, whoever asks (and a new call there is an
        // edit of the file, which resolves all its calls again).
        let sites = self.candidate_sites(function);
        if sites.is_empty() {
            return Vec::new();
        }
        if self.resolving_site.get() {
            self.truncated.set(true); // one level deep: not what a full evaluation gives
            return Vec::new();
        }
        // Depends on the file of the call being resolved.
        self.consumer_bound.set(true);
        if self.consumer_file.get() != Some(f.file) {
            return Vec::new();
        }
        self.note_arguments_used(std::slice::from_ref(&f.name));
        let Some(name) = self.parameter_name(function, position) else {
            return Vec::new();
        };
        let key = (function, Box::from(name.as_str()));
        if let Some(values) = self.argument_cache.borrow().get(&key) {
            return values.clone();
        }
        // A method that takes its receiver first (`self`): a call's
        // arguments start at the second parameter.
        let receiver_first = self
            .parameter_name(function, 0)
            .zip(self.lang_of(f.file))
            .is_some_and(|(first, lang)| lang.self_receivers.contains(&first.as_str()));
        let index = position.checked_sub(usize::from(receiver_first));
        let mut values = Vec::new();
        for (site, arguments) in sites.iter() {
            let Some(argument) = arguments
                .as_deref()
                .and_then(|arguments| argument_for(arguments, &name, index))
            else {
                continue;
            };
            self.without_argument_flow(|| {
                let reaches = self
                    .resolve(site.file, site.enclosing, &site.callee)
                    .iter()
                    .any(|(id, _)| *id == function);
                if reaches {
                    values.extend(self.values_of_expr(site.file, site.enclosing, argument));
                }
            });
        }
        values.sort_unstable();
        values.dedup();
        self.argument_cache.borrow_mut().insert(key, values.clone());
        values
    }

    /// Runs `f` as a call that binds a parameter is resolved: without
    /// argument flow (one level deep), with a fresh depth and cycle check,
    /// and with nothing that holds for one file only, so that what it finds
    /// is the same wherever it is asked, and the evaluation that asks is not cut.
    fn without_argument_flow(&self, f: impl FnOnce()) {
        let in_progress = std::mem::take(&mut *self.in_progress.borrow_mut());
        let depth = self.flow_depth.replace(0);
        let cut = self.truncated.get();
        let site = self.resolving_site.replace(true);
        f();
        self.resolving_site.set(site);
        self.truncated.set(cut);
        self.flow_depth.set(depth);
        *self.in_progress.borrow_mut() = in_progress;
    }

    /// The calls in `function`'s file that may call it (by name), with their
    /// arguments; none past [`MAX_ARGUMENT_SITES`]. Read once per pass.
    fn candidate_sites(&self, function: i64) -> Rc<Vec<rows::ArgumentSite>> {
        if let Some(found) = self.site_cache.borrow().get(&function) {
            return found.clone();
        }
        let Some(f) = self.symbol(function) else {
            return Rc::default();
        };
        let sites = match rows::calls_named_in(self.conn, f.file, &f.name, MAX_ARGUMENT_SITES) {
            Ok(sites) => sites.unwrap_or_default(),
            Err(e) => {
                self.read_error.borrow_mut().get_or_insert(e);
                Vec::new()
            }
        };
        let sites = Rc::new(sites);
        self.site_cache.borrow_mut().insert(function, sites.clone());
        sites
    }

    /// The name of the parameter at `position` of `function`.
    fn parameter_name(&self, function: i64, position: usize) -> Option<String> {
        let file = self.symbol(function)?.file;
        let wanted = Binding::Parameter.encode(&position.to_string());
        let bindings = self.bindings_of_file(file);
        let names = bindings.get(&Some(function))?;
        names
            .iter()
            .find(|(_, values)| values.iter().any(|v| **v == *wanted))
            .map(|(name, _)| name.clone())
    }
}

/// `"..."`, `'...'`, `` `...` ``, with a Python prefix (`f"..."`, `rb'...'`).
pub(super) fn is_string_literal(text: &str) -> bool {
    let text = text.trim();
    let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if text.len() - body.len() > 2 {
        return false;
    }
    let mut chars = body.chars();
    match (chars.next(), body.chars().last()) {
        (Some(open), Some(close)) => {
            body.len() >= 2 && open == close && matches!(open, '"' | '\'' | '`')
        }
        _ => false,
    }
}

/// `OPS` in `OPS[key]` (or `steps[]`, `self.items[]`): one subscript of a
/// name or an attribute.
pub(super) fn container_of_element(expression: &str) -> Option<&str> {
    let (container, subscript) = expression.trim().split_once('[')?;
    let plain = !container.is_empty()
        && !container.starts_with('.')
        && container
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    // One subscript, closed at the end: `m[a][b]` and `m[a].x` are not.
    let mut depth = 1;
    for (i, c) in subscript.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return (plain && i + 1 == subscript.len()).then_some(container);
        }
    }
    None
}

/// The argument a call passes for parameter `name` at `index` (after the
/// receiver): its keyword argument, else the positional one, unless a splat
/// comes first.
fn argument_for<'a>(arguments: &'a str, name: &str, index: Option<usize>) -> Option<&'a str> {
    let mut positional = 0;
    let mut found = None;
    for argument in crate::lang::extract::decode_arguments(arguments) {
        if let Some((key, value)) = argument.split_once('=') {
            let keyword = !key.is_empty()
                && key.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !value.starts_with('=');
            if keyword {
                if key == name {
                    return Some(value);
                }
                continue;
            }
        }
        if argument == "*" {
            index.filter(|i| *i >= positional)?;
        }
        if found.is_none() && Some(positional) == index {
            found = Some(argument);
        }
        positional += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::container_of_element;

    #[test]
    fn a_container_is_a_plain_name_with_one_subscript() {
        assert_eq!(container_of_element("OPS[name]"), Some("OPS"));
        assert_eq!(container_of_element("steps[]"), Some("steps"));
        assert_eq!(container_of_element("ops[keys[0]]"), Some("ops"));
        assert_eq!(container_of_element("m[a][b]"), None);
        assert_eq!(container_of_element("m[a].x"), None);
        assert_eq!(container_of_element("self.m[a]"), Some("self.m"));
        assert_eq!(container_of_element("f()[0]"), None);
        assert_eq!(container_of_element("[a]"), None);
    }
}
