//! The types that flow: what a name, an attribute or a call's result holds,
//! evaluated from the bindings extraction stored (see `Binding` and
//! ARCHITECTURE.md, "The model of types"). Flow-insensitive and per project;
//! complete evaluations are remembered for the pass, cut ones are not.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::pass::*;
use super::table::Symbol;
use crate::evidence::Kind;
use crate::lang::extract::{DECORATED, ELEMENTS};
use crate::lang::syntax;

impl Graph<'_> {
    /// Runs `f` one level deeper into the flow, or returns nothing past the limit.
    pub(super) fn deeper(&self, f: impl FnOnce() -> Vec<Value>) -> Vec<Value> {
        let depth = self.flow_depth.get();
        if depth >= MAX_FLOW_DEPTH {
            self.depth_cut.set(true);
            return Vec::new();
        }
        self.flow_depth.set(depth + 1);
        self.deepest.set(self.deepest.get().max(depth + 1));
        let mut values = f();
        self.flow_depth.set(depth);
        values.sort_unstable();
        values.dedup();
        values
    }

    /// What calling `callee` gives back: an instance of a class called, what
    /// a function called returns.
    pub(super) fn call_results(&self, file: i64, scope: Option<i64>, callee: &str) -> Vec<Value> {
        self.deeper(|| self.results_of(self.values_of_expr(file, scope, callee)))
    }

    /// What calling each of `values` gives.
    fn results_of(&self, values: Vec<Value>) -> Vec<Value> {
        let mut results = Vec::new();
        for value in values {
            match value {
                Value::Class(class) => results.push(Value::Instance(class)),
                Value::Callable(function) => {
                    let returned = self.returns(function);
                    // `new Foo()` of a function that returns nothing: its
                    // instance, where functions are run as constructors.
                    if returned.is_empty() && self.constructs(function) {
                        results.push(Value::Instance(function));
                    }
                    results.extend(returned);
                }
                Value::Outside(id) => {
                    let (name, kind) = self.outside_name(id);
                    results.extend(self.outside_value(format!("{name}()"), kind));
                }
                Value::Instance(_) => {}
            }
        }
        results
    }

    /// What a self receiver (`self`, `this`) is in `scope`: an instance of
    /// its class; for a method outside its class (`Foo.prototype.hi = ...`,
    /// Go's receivers), of the owner its qualified name names.
    fn self_values(&self, file: i64, scope: Option<i64>) -> Vec<Value> {
        match self.owner_class(scope) {
            Some((Some(class), _)) => vec![Value::Instance(class)],
            Some((None, owner)) => self.instances_of(file, &owner),
            None => Vec::new(),
        }
    }

    /// Instances of the class, or constructor function, `owner` names.
    fn instances_of(&self, file: i64, owner: &str) -> Vec<Value> {
        (self.resolve_bare(file, None, owner).into_iter())
            .filter_map(|(id, _)| match self.value_of_definition(id) {
                Value::Class(class) => Some(Value::Instance(class)),
                Value::Callable(f) if self.constructs(f) => Some(Value::Instance(f)),
                _ => None,
            })
            .collect()
    }

    /// A remembered evaluation of `key`: from the pass's cache, or from
    /// the cache of evaluations that hold for the current call's file only
    /// (they used argument flow), noting what those used. Either is taken
    /// only for the levels left below this depth: a value computed
    /// completely from higher up would be cut here, and what a call
    /// resolves to must not depend on whether another call asked first.
    pub(super) fn cached<K: std::hash::Hash + Eq>(
        &self,
        cache: &std::cell::RefCell<FxHashMap<K, Memo>>,
        local: &std::cell::RefCell<FxHashMap<K, Remembered>>,
        key: &K,
    ) -> Option<Vec<Value>> {
        let depth = self.flow_depth.get();
        let left = MAX_FLOW_DEPTH - depth;
        let reached = |height: usize| self.deepest.set(self.deepest.get().max(depth + height));
        if let Some((values, height, cut)) = cache.borrow().get(key).and_then(|m| m.get(left)) {
            reached(height);
            if cut {
                self.depth_cut.set(true);
            }
            return Some(values.to_vec());
        }
        if self.resolving_site.get() {
            return None; // what holds with argument flow is not for a call that binds it
        }
        let local = local.borrow();
        let (values, functions, height) = local.get(key)?;
        if *height > left {
            return None;
        }
        reached(*height);
        self.consumer_bound.set(true);
        self.note_arguments_used(functions);
        Some(values.clone())
    }

    /// `compute()`, remembered under `key` unless a cycle cut it short, so
    /// a remembered value never depends on where it was first asked for:
    /// complete, with the levels it needed, or cut by the flow depth, with
    /// the levels that were left; in `cache` for the pass, or, complete, in
    /// `local` for the current call's file when it depends on that file
    /// (argument flow).
    pub(super) fn remembered<K: std::hash::Hash + Eq>(
        &self,
        cache: &std::cell::RefCell<FxHashMap<K, Memo>>,
        local: &std::cell::RefCell<FxHashMap<K, Remembered>>,
        key: K,
        compute: impl FnOnce() -> Vec<Value>,
    ) -> Vec<Value> {
        if let Some(values) = self.cached(cache, local, &key) {
            return values;
        }
        let start = self.flow_depth.get();
        let outer_deepest = self.deepest.replace(start);
        let outer_cut = self.truncated.replace(false);
        let outer_depth_cut = self.depth_cut.replace(false);
        let outer_bound = self.consumer_bound.replace(false);
        let outer_used = self.arguments_used.replace(Vec::new());
        let values = compute();
        let cut = self.truncated.replace(outer_cut || self.truncated.get());
        let depth_cut = self
            .depth_cut
            .replace(outer_depth_cut || self.depth_cut.get());
        let bound = self
            .consumer_bound
            .replace(outer_bound || self.consumer_bound.get());
        let used = self.arguments_used.replace(outer_used);
        let deepest = self.deepest.replace(outer_deepest.max(self.deepest.get()));
        self.note_arguments_used(&used);
        if cut {
            return values;
        }
        let height = deepest - start;
        if bound {
            if !depth_cut {
                let entry = (values.clone(), used, height);
                local.borrow_mut().insert(key, entry);
            }
        } else {
            let mut cache = cache.borrow_mut();
            let memo = cache.entry(key).or_default();
            if depth_cut {
                memo.cut.push((MAX_FLOW_DEPTH - start, values.clone()));
            } else {
                memo.complete = Some((values.clone(), height));
            }
        }
        values
    }

    /// Runs `f` with the whole flow depth before it, whatever depth asks,
    /// for what belongs to a definition rather than to an evaluation (a
    /// class's bases): found so, it is the same wherever it is asked. The
    /// depth cuts inside stay inside; a cycle still cuts the asker. Past a
    /// few such runs nested in each other (the stack), `f` runs where it is
    /// asked and counts as cut, so nothing it finds is remembered.
    pub(super) fn with_whole_depth<T>(&self, f: impl FnOnce() -> T) -> T {
        let nesting = self.whole_depth_nesting.get();
        if nesting >= MAX_WHOLE_DEPTH_NESTING {
            self.truncated.set(true);
            return f();
        }
        self.whole_depth_nesting.set(nesting + 1);
        let depth = self.flow_depth.replace(0);
        let deepest = self.deepest.replace(0);
        let depth_cut = self.depth_cut.replace(false);
        let out = f();
        self.depth_cut.set(depth_cut);
        self.deepest.set(deepest);
        self.flow_depth.set(depth);
        self.whole_depth_nesting.set(nesting);
        out
    }

    /// Records that the call being resolved used the parameters of functions
    /// named `functions` (their calls in its file bind them).
    pub(super) fn note_arguments_used(&self, functions: &[Rc<str>]) {
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

    /// `f(...).attr`: attributes of what the call gives back; `make()()`:
    /// what calling what `make()` gives gives.
    fn values_of_call_expr(&self, file: i64, scope: Option<i64>, expression: &str) -> Vec<Value> {
        if let Some(called) = called_result(expression) {
            return self.deeper(|| self.results_of(self.values_of_expr(file, scope, called)));
        }
        let Some(open) = expression.find('(') else {
            return Vec::new();
        };
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
        if expression.contains('(') {
            return self.values_of_call_expr(file, scope, expression);
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
        let normalized = syntax::dotted(expression);
        let segments: Vec<&str> = normalized.split('.').filter(|s| !s.is_empty()).collect();
        let Some((&head, rest)) = segments.split_first() else {
            return Vec::new();
        };
        self.deeper(|| {
            let mut values: Vec<Value> = Vec::new();
            let mut consumed = 1;
            if lang.self_receivers.contains(&head) {
                values.extend(self.self_values(file, scope));
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
                        .flat_map(|(id, _)| self.values_of_definition(id))
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
    pub(super) fn through_bindings(
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
        let values = self.values_of_expr(file, scope, receiver);
        let (mut ids, mut sites) = self.members_of_values(&values, attribute);
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

/// `make()` in `make()(x)`: an expression that calls a call's result, less
/// its last argument list (matched from the end; `None` for anything else).
fn called_result(expression: &str) -> Option<&str> {
    let body = expression.strip_suffix(')')?;
    let mut depth = 1usize;
    for (at, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let inner = body[..at].trim_end();
                    return inner.ends_with(')').then_some(inner);
                }
            }
            '"' | '\'' | '`' => return None,
            _ => {}
        }
    }
    None
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
