//! Names through scopes, imports and re-exports: what a bare name, an
//! imported item or a member of a module means in one file.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::pass::*;
use super::table::{parent_dir, Symbol};
use crate::evidence::Kind;
use crate::lang::{self};
use crate::store::graph as rows;

impl Graph<'_> {
    /// `Cls.m` where the file imports the item `Cls` from `target`: the
    /// methods `m` of the classes `target` exports under that name.
    pub(super) fn methods_of_imported_class(
        &self,
        target: &str,
        item: &str,
        method: &str,
    ) -> Vec<(i64, Confidence)> {
        self.exported(target, item, 0)
            .into_iter()
            .filter(|id| self.symbol(*id).is_some_and(|s| s.kind.is_class_like()))
            .flat_map(|class| {
                let owner = self
                    .symbol(class)
                    .map_or(String::new(), |c| c.name.to_string());
                self.method_of(Some(class), &owner, method, false, 0)
            })
            .collect()
    }

    /// Whether `target` is the module `name` itself (`from pkg import mod` → `pkg/mod.py`).
    pub(super) fn is_module_named(&self, target: &str, name: &str) -> bool {
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

    /// [`Graph::resolve`], with a class answered as the class rather than
    /// the constructor a call of it runs (which may be a base class's).
    pub(super) fn resolve_as_written(
        &self,
        file: i64,
        scope: Option<i64>,
        expression: &str,
    ) -> Vec<(i64, Confidence)> {
        self.as_written(|| self.resolve(file, scope, expression))
    }

    pub(super) fn as_written<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = self.classes_as_written.replace(true);
        let out = f();
        self.classes_as_written.set(before);
        out
    }

    /// A class-like definition means its constructor when called.
    pub(super) fn constructor_of(&self, id: i64) -> i64 {
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
    pub(super) fn bound_at_top_of(&self, target: &str, name: &str) -> Vec<(i64, Confidence)> {
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
    pub(super) fn exported(&self, target: &str, name: &str, depth: usize) -> Vec<i64> {
        let files: Vec<i64> = match self.table.file_by_path.get(target) {
            Some(id) => vec![*id],
            None => self.table.package_files(target).to_vec(),
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
                    let globbed =
                        import.name.as_deref() == Some("*") && self.glob_brings(next, name);
                    let reexports = import.binding() == Some(name) || globbed;
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

    /// Whether `from target import *` brings `name`: every name, unless
    /// the module lists what it exports (`__all__`) or its language leaves
    /// private names out.
    pub(super) fn glob_brings(&self, target: &str, name: &str) -> bool {
        let Some(&file) = self.table.file_by_path.get(target) else {
            return true; // a package's directory: its files are read one by one
        };
        let cached = self.names_lists.borrow().get(&file).cloned();
        let list = match cached {
            Some(list) => list,
            None => {
                let list = match rows::names_list_of(self.conn, file) {
                    Ok(list) => list.map(Rc::from),
                    Err(e) => {
                        self.read_error.borrow_mut().get_or_insert(e);
                        None
                    }
                };
                self.names_lists.borrow_mut().insert(file, list.clone());
                list
            }
        };
        let leaves_private = self.lang_of(file).is_some_and(|l| l.glob_leaves_private);
        crate::lang::extract::glob_brings(list.as_deref(), name, leaves_private)
    }

    pub(super) fn resolve_bare(
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
                let found = self.bare_children(id, name, lang.implicit_this || in_body);
                if !found.is_empty() {
                    return exact(&found);
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
            let same_package: Vec<i64> = self
                .table
                .package_peers(file)
                .iter()
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
            // Glob imports: `from x import *`, `use a::*`; a later one
            // rebinds what an earlier one bound.
            self.table
                .imports_of(file)
                .iter()
                .rev()
                .filter(|i| i.name.as_deref() == Some("*") && i.alias.is_none())
                .filter_map(|i| i.target.as_deref())
                .filter(|target| self.glob_brings(target, name))
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
    pub(super) fn name_only(
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

    /// The children of `parent` named `name` that a bare name reaches. A
    /// method is reached through its object, never by its bare name
    /// (`setTimeout() { return setTimeout(f) }` calls the global), unless
    /// `methods_too`: a bare name reads `this`, or a class body is the
    /// call's scope.
    fn bare_children(&self, parent: i64, name: &str, methods_too: bool) -> Vec<i64> {
        let ids = self.child(parent, name).unwrap_or_default();
        ids.iter()
            .copied()
            .filter(|c| methods_too || self.symbol(*c).is_some_and(|m| m.kind != Kind::Method))
            .collect()
    }

    /// Method `name` of a class (by id, or by owner name), then of its bases.
    pub(super) fn method_of(
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

    /// `last` inside the namespaces or modules `head` names, outermost first:
    /// every namespace of the caller's language with that name (a namespace
    /// spans files), then their members by name. `None` when `head[0]`
    /// names no namespace.
    pub(super) fn through_namespaces(
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
    pub(super) fn members_of_file_tables(
        &self,
        target: &str,
        name: &str,
    ) -> Vec<(i64, Confidence)> {
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
    pub(super) fn through_includes(&self, file: i64, name: &str) -> Vec<i64> {
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
    pub(super) fn include_closure(&self, file: i64) -> Rc<FxHashSet<i64>> {
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
    pub(super) fn defined(&self, found: Vec<(i64, Confidence)>) -> Vec<(i64, Confidence)> {
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
}
