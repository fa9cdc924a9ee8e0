//! The resolution rules for one call site, tried in order ([`RULES`]); the
//! first that answers decides. They refine the numbered list in the module
//! doc: the expression forms first (a string's method, a container's
//! element, a call's result, a chained call), then 1. a bare name, 2. a
//! method of `self` or a base, 3. a receiver by its bindings, its imports,
//! its module path, its namespaces or its class, and 4. a name alone.

use super::flow;
use super::pass::*;
use crate::evidence::Kind;
use crate::lang::syntax;
use crate::lang::LanguageSpec;

/// What is being resolved: one call site, its callee as written and as
/// segments (`a::b` and `a?.b` read as `a.b`).
pub(super) struct Site<'s> {
    file: i64,
    enclosing: Option<i64>,
    lang: &'static LanguageSpec,
    /// The callee as written, without `new `.
    callee: &'s str,
    /// The segments before the last one: the receiver's path.
    head: &'s [&'s str],
    /// The called name: the last segment.
    last: &'s str,
    /// All segments, the called name included.
    segments: &'s [&'s str],
    /// What the receiver's last segment names in scope, once asked.
    owner_ids: std::cell::OnceCell<Vec<(i64, Confidence)>>,
}

impl Site<'_> {
    /// The receiver's last segment (`Cls` in `pkg.Cls.m`).
    fn owner(&self) -> &str {
        self.head.last().copied().unwrap_or("")
    }

    fn owner_ids(&self, g: &Graph<'_>) -> &[(i64, Confidence)] {
        self.owner_ids
            .get_or_init(|| g.resolve_bare(self.file, self.enclosing, self.owner()))
    }
}

/// One rule: `Some` is the answer (empty: nothing may be guessed), `None`
/// passes the call to the next rule.
type Rule = fn(&Graph<'_>, &Site<'_>) -> Option<Vec<(i64, Confidence)>>;

/// The rules in the order they are tried; [`Graph::name_only`] answers what
/// none of them does.
const RULES: &[Rule] = &[
    string_method,
    container_element,
    call_result,
    chained_call,
    bare_name,
    pointer_field,
    self_or_base,
    bound_receiver,
    imported_receiver,
    module_path,
    namespace_member,
    class_member,
    known_outside,
    owner_by_name,
];

impl Graph<'_> {
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

    pub(super) fn resolve_callee(
        &self,
        file: i64,
        enclosing: Option<i64>,
        callee: &str,
    ) -> Vec<(i64, Confidence)> {
        let Some(lang) = self.lang_of(file) else {
            return Vec::new();
        };
        let callee = syntax::without_new(callee);
        let normalized = syntax::dotted(callee);
        let segments: Vec<&str> = normalized.split('.').filter(|s| !s.is_empty()).collect();
        let Some((&last, head)) = segments.split_last() else {
            return Vec::new();
        };
        let site = Site {
            file,
            enclosing,
            lang,
            callee,
            head,
            last,
            segments: &segments,
            owner_ids: Default::default(),
        };
        RULES
            .iter()
            .find_map(|rule| rule(self, &site))
            .unwrap_or_else(|| {
                self.name_only(last, 1, |s| s.kind == Kind::Method || s.parent.is_none())
            })
    }
}

/// `", ".join`: a method of the language's string type, never the repository's.
fn string_method(_: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    site.callee
        .rsplit_once('.')
        .is_some_and(|(receiver, _)| flow::is_string_literal(receiver))
        .then(Vec::new)
}

/// `OPS[name]()`: what the container's elements hold.
fn container_element(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    flow::container_of_element(site.callee)?;
    let found = g.callables(&g.values_of_expr(site.file, site.enclosing, site.callee));
    (!found.is_empty()).then_some(found)
}

/// A call of a call's result (`make()()`, a decorator `@route("/")`
/// applied): what the result holds, else nothing to guess by name.
fn call_result(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    (site.callee.ends_with(')') && !site.callee.starts_with('('))
        .then(|| g.callables(&g.values_of_expr(site.file, site.enclosing, site.callee)))
}

/// Chained calls: `Cls(...).m` is a method of a fresh `Cls`, `f().m` of
/// what `f` returns; otherwise (`x[0].m`) the receiver's type is unknown.
fn chained_call(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    let callee = site.callee;
    if !(callee.contains('(') || callee.contains('[')) {
        return None;
    }
    let name = crate::lang::extract::last_identifier(callee);
    // `super().m(...)` (and `super(Cls, self).m`): a method of a base
    // class; when none in the repository has it, it is outside.
    let head = callee.split('(').next().unwrap_or("").trim();
    if site.lang.base_receivers.contains(&head) && callee.ends_with(&format!(").{name}")) {
        return Some(g.base_method(site.enclosing, name));
    }
    if let Some(receiver) = callee.strip_suffix(name).and_then(|r| r.strip_suffix('.')) {
        let values = g.values_of_expr(site.file, site.enclosing, receiver);
        let found = g.methods_of_values(&values, name);
        if !found.is_empty() || g.all_lead_outside(&values) {
            return Some(found);
        }
    }
    Some(g.name_only(name, 1, |s| s.kind == Kind::Method))
}

/// Rule 1, a bare name: `cls(...)` in a classmethod and `Self(...)` are the
/// class's constructor; a name bound inside the function (`fn = a`,
/// `s = factory()`) hides what the module calls so; then the scopes.
fn bare_name(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    if !site.head.is_empty() {
        return None;
    }
    let last = site.last;
    if site.lang.class_names.contains(&last) {
        if let Some((Some(class), _)) = g.owner_class(site.enclosing) {
            return Some(vec![(g.constructor_of(class), Confidence::Exact)]);
        }
    }
    if let Some(found) = g.called_through_local(site.file, site.enclosing, last) {
        g.held_by_local.set(true);
        return Some(found);
    }
    let found = g.resolve_bare(site.file, site.enclosing, last);
    Some(g.through_variables(found))
}

/// `p->handler()` in C: a function pointer, whatever it holds.
fn pointer_field(_: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    site.lang.fields_are_pointers.then(Vec::new)
}

/// Rule 2, `self.m` / `this.m` / `super.m`: the enclosing class, then its
/// bases; neither defining it, a subclass's `m` (a template method) unless
/// a base outside the repository may provide it.
fn self_or_base(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    let head = &site.head;
    let single = (head.len() == 1).then(|| head[0]);
    let via_base = single.is_some_and(|h| site.lang.base_receivers.contains(&h));
    let via_self = single.is_some_and(|h| site.lang.self_receivers.contains(&h));
    if !(via_base || via_self) {
        return None;
    }
    let last = site.last;
    if let Some((class, owner)) = g.owner_class(site.enclosing) {
        let found = if via_base {
            g.base_method(site.enclosing, last)
        } else {
            g.method_of(class, &owner, last, false, 0)
                .into_iter()
                .map(|(id, c)| {
                    // An `impl` of the caller's own type in the caller's file.
                    let same_file = g.symbol(id).is_some_and(|s| s.file == site.file);
                    let exact = class.is_none() && same_file;
                    (id, if exact { Confidence::Exact } else { c })
                })
                .collect()
        };
        if !found.is_empty() {
            return Some(found);
        }
        // No method: an attribute that holds one (`self.run = self.step`).
        if via_self {
            let attribute = format!("{}.{last}", head[0]);
            let held = g.callables(&g.values_of_expr(site.file, site.enclosing, &attribute));
            if !held.is_empty() {
                return Some(held);
            }
        }
        if let (Some(class), false) = (class, via_base) {
            let found = g.overrides_below(class, last);
            if !found.is_empty() && g.outside_base_cached(class).is_none() {
                return Some(found);
            }
        }
    }
    Some(g.name_only(last, 1, |s| s.kind == Kind::Method))
}

/// `x = Cls(); x.m()`, `def f(x: Cls)`, `self.store.open()`: the receiver's
/// type through its bindings; known to come from outside, nothing is guessed.
fn bound_receiver(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    let first = *site.head.first()?;
    if !site.lang.self_receivers.contains(&first)
        && g.bindings(site.file, site.enclosing, first).is_empty()
    {
        return None;
    }
    let values = g.values_of_expr(site.file, site.enclosing, &site.head.join("."));
    let found = g.methods_of_values(&values, site.last);
    (!found.is_empty() || g.all_lead_outside(&values)).then_some(found)
}

/// Rule 3, `m.f()` / `pkg.mod.f()` / `Alias::new()` through the file's imports.
fn imported_receiver(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    let (head, last) = (&site.head, site.last);
    let first = *head.first()?;
    let head_text = head.join(site.lang.separator);
    for import in g.table.imports_of(site.file).iter() {
        let Some(target) = &import.target else {
            continue;
        };
        let binds_head = import.binding() == Some(first) && head.len() == 1;
        let names_module =
            import.name.is_none() && import.alias.is_none() && import.module == head_text;
        if !(binds_head || names_module) {
            continue;
        }
        let found = match import.name.as_deref() {
            // The import names an item (`from m import Cls`, `use a::Db as D`):
            // `Cls.f` is a method of it, unless the item is itself a module file.
            Some(item) if item != "*" && !g.is_module_named(target, item) => {
                let found = g.methods_of_imported_class(target, item, last);
                if found.is_empty() && binds_head {
                    // An imported value (`export const provider: Provider
                    // = ...`): a method of what it is declared to be.
                    let values = g.values_of_expr(site.file, site.enclosing, first);
                    g.methods_of_values(&values, last)
                } else {
                    found
                }
            }
            _ => {
                let found: Vec<_> = (g.exported(target, last, 0).into_iter())
                    .map(|id| (g.constructor_of(id), Confidence::Exact))
                    .collect();
                if found.is_empty() {
                    // A name the module binds to a definition (`export { f
                    // as g }`, `g = f`), as for a name imported from it.
                    g.bound_at_top_of(target, last)
                } else {
                    found
                }
            }
        };
        if !found.is_empty() {
            return Some(found);
        }
        // A module that returns a table of functions (Lua's `local M = {}
        // ... function M.f() ... return M`): `mod.f` is that file's `M.f`.
        if import.name.is_none() {
            let owned_there = g.members_of_file_tables(target, last);
            if !owned_there.is_empty() {
                return Some(owned_there);
            }
        }
    }
    None
}

/// Rust module paths: `crate::a::f()`, `super::f()`, another crate of the
/// workspace: `evident_index::store::f()`.
fn module_path(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    let first = *site.head.first()?;
    if !(site.lang.module_path_heads.contains(&first) || g.resolver.is_rust_crate(first)) {
        return None;
    }
    let path = g
        .table
        .files
        .get(&site.file)
        .map_or("", |f| f.path.as_str());
    let head_text = site.head.join(site.lang.separator);
    let target = g.resolver.resolve(site.lang, path, &head_text, None)?;
    let ids = g.exported(&target, site.last, 0);
    (!ids.is_empty()).then(|| ids.into_iter().map(|id| (id, Confidence::Exact)).collect())
}

/// `ns::f()`, `ns::Cls::m()`, `Shop::Pricing.new`: through namespaces and
/// modules, which may be reopened in many files.
fn namespace_member(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    g.through_namespaces(site.file, site.head, site.last)
}

/// `Cls.method` / `Type::method`: the head names a class or type; an
/// object bound to a name (`obj.run`) has the members written in it.
fn class_member(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    let owner = site.owner();
    for &(owner_id, confidence) in site.owner_ids(g) {
        let class = match g.symbol(owner_id) {
            Some(s) if s.kind.is_class_like() => Some(owner_id),
            Some(s) => s.parent.filter(|p| {
                g.symbol(*p)
                    .is_some_and(|p| p.kind.is_class_like() && &*p.name == owner)
            }),
            None => None,
        };
        let kind = g.symbol(owner_id).map(|s| s.kind);
        // `var obj = { run: function () {} }`: `obj.run` is the member; so
        // is `obj.stop = function () {}` in the variable's own file.
        if matches!(kind, Some(Kind::Variable | Kind::Constant)) {
            if let Some(members) = g.child(owner_id, site.last) {
                return Some(members.iter().map(|id| (*id, confidence)).collect());
            }
            let members = keys_assigned(g, owner_id, site.last);
            if !members.is_empty() {
                return Some(members.into_iter().map(|id| (id, confidence)).collect());
            }
        }
        let is_type = matches!(kind, Some(Kind::Struct | Kind::Enum | Kind::Trait));
        if class.is_some() || is_type {
            let found = g.method_of(class.or(Some(owner_id)), owner, site.last, false, 0);
            if !found.is_empty() {
                // A nested class (`Outer.Inner()`) runs its constructor.
                return Some(
                    found
                        .into_iter()
                        .map(|(id, c)| (g.constructor_of(id), c.max(confidence)))
                        .collect(),
                );
            }
        }
    }
    None
}

/// The methods named `name` written as keys assigned to the variable
/// `owner_id` (`res.send = function () {}`) in the variable's file.
fn keys_assigned(g: &Graph<'_>, owner_id: i64, name: &str) -> Vec<i64> {
    let Some(owner) = g.symbol(owner_id) else {
        return Vec::new();
    };
    let file = owner.file;
    let found = g.owned(&owner.name, name).unwrap_or_default();
    (found.iter().copied())
        .filter(|id| {
            g.symbol(*id)
                .is_some_and(|s| s.file == file && s.parent.is_none())
        })
        .collect()
}

/// A receiver imported from outside the repository: nothing is guessed.
fn known_outside(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    g.imported_from_outside(site.file, site.segments)
        .map(|_| Vec::new())
}

/// Rule 4 for a member: an owner no scope names, with few definitions of
/// `owner.last` anywhere, means those.
fn owner_by_name(g: &Graph<'_>, site: &Site<'_>) -> Option<Vec<(i64, Confidence)>> {
    if !site.owner_ids(g).is_empty() {
        return None;
    }
    let ids = g.owned(site.owner(), site.last)?;
    (ids.len() <= NAME_ONLY_MAX).then(|| ids.iter().map(|id| (*id, Confidence::Inferred)).collect())
}
