//! Naming what leaves the repository: a call nothing in it answers is
//! named as `external` (through an import no file satisfies, or a base
//! class outside) or `builtin`.

use std::rc::Rc;

use super::flow::is_string_literal;
use super::pass::*;
use super::{hierarchy, table};
use crate::lang::syntax;

impl Graph<'_> {
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
        let callee = syntax::without_new(callee);
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
        let normalized = syntax::dotted(callee);
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
        if lang.builtins.contains(head) && self.bindings(file, enclosing, head).is_empty() {
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
    pub(super) fn glob_outside_answering(&self, file: i64, name: &str) -> Option<String> {
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

    /// A class's first base outside the repository, looked up once per pass
    /// (with the whole flow depth, so the same wherever it is asked).
    pub(super) fn outside_base_cached(&self, class: i64) -> Option<String> {
        let cached = self.outside_bases.borrow().get(&class).cloned();
        match cached {
            Some(base) => base,
            None => {
                let outer = self.truncated.replace(false);
                let base = self.with_whole_depth(|| self.outside_base(class, 0));
                let cut = self.truncated.replace(outer || self.truncated.get());
                if !cut {
                    self.outside_bases.borrow_mut().insert(class, base.clone());
                }
                base
            }
        }
    }

    /// Method `method` of the enclosing class's first base outside the repository.
    pub(super) fn outside_method(
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
    pub(super) fn imported_from_outside(&self, file: i64, segments: &[&str]) -> Option<String> {
        let lang = self.lang_of(file)?;
        let (head, rest) = segments.split_first()?;
        let import = self.table.imports_of(file).iter().find(|i| {
            i.target.is_none() && i.binding() == Some(head) && !i.module.starts_with('.')
        })?;
        // Path-like modules keep their slashes: `@acme/ui.button`, `net/http.Get`.
        let module = syntax::dotted(&import.module);
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
    pub(super) fn outside_base(&self, class: i64, depth: usize) -> Option<String> {
        if depth >= MAX_BASE_DEPTH {
            return None;
        }
        let class = self.symbol(class)?;
        for base in &class.bases {
            let normalized = syntax::dotted(base);
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
        let normalized = syntax::dotted(outer);
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
}
