//! Class hierarchies: bases as written, C3 method resolution order,
//! subclasses (for `self.m()` that only a subclass defines), and methods
//! found through them.

use std::rc::Rc;

use rustc_hash::FxHashSet;

use super::pass::*;
use super::table::Symbol;
use crate::evidence::Kind;
use crate::lang::syntax;

/// What to do at a subclass met by [`Graph::walk_subclasses`].
pub(super) enum Below {
    /// Look at its subclasses too.
    Descend,
    /// Not below this one.
    Skip,
    /// Nothing more anywhere.
    Stop,
}

impl Graph<'_> {
    /// A method `name` of a base of the class enclosing `enclosing`, the
    /// first in method resolution order (what `super().name` runs).
    pub(super) fn base_method(&self, enclosing: Option<i64>, name: &str) -> Vec<(i64, Confidence)> {
        let Some((Some(class), _)) = self.owner_class(enclosing) else {
            return Vec::new();
        };
        self.inherited_method(class, name)
    }

    /// Method `name` of the first of a class's bases (in method resolution
    /// order) that defines it, as an inferred edge.
    pub(super) fn inherited_method(&self, class: i64, name: &str) -> Vec<(i64, Confidence)> {
        for base in self.linearization(class).into_iter().skip(1) {
            let Some(owner) = self.symbol(base).map(|b| b.name.to_string()) else {
                continue;
            };
            let found = self.method_of(Some(base), &owner, name, true, MAX_REEXPORT_DEPTH);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The classes that name `class` as a base: those whose bases end in
    /// its name (an index built once), kept when a base resolves to it.
    pub(super) fn subclasses_of(&self, class: i64) -> Rc<[i64]> {
        if let Some(found) = self.subclass_lists.borrow().get(&class) {
            return found.clone();
        }
        let found: Rc<[i64]> = self.subclasses_uncached(class).into();
        self.subclass_lists
            .borrow_mut()
            .insert(class, found.clone());
        found
    }

    pub(super) fn subclasses_uncached(&self, class: i64) -> Vec<i64> {
        let Some(name) = self.symbol(class).map(|c| c.name.clone()) else {
            return Vec::new();
        };
        (self.table.based_on_name(&name).into_iter())
            .filter(|sub| self.bases_of(*sub).contains(&class))
            .collect()
    }

    /// The nearest definitions of method `name` below `class` (each path
    /// down the subclasses stops at its first), as inferred edges.
    pub(super) fn overrides_below(&self, class: i64, name: &str) -> Vec<(i64, Confidence)> {
        let mut found = Vec::new();
        self.walk_subclasses(class, |sub| match self.child(sub, name) {
            Some(ids) => {
                found.extend(ids.iter().map(|id| (*id, Confidence::Inferred)));
                if found.len() > MAX_OVERRIDES {
                    Below::Stop
                } else {
                    Below::Skip
                }
            }
            None => Below::Descend,
        });
        if found.len() > MAX_OVERRIDES {
            return Vec::new(); // too many to be evidence of anything
        }
        found
    }

    /// Walks the subclasses of `class` breadth first, each once, at most
    /// `MAX_REEXPORT_DEPTH` levels down; `visit` says where to go on.
    pub(super) fn walk_subclasses(&self, class: i64, mut visit: impl FnMut(i64) -> Below) {
        let mut seen: FxHashSet<i64> = FxHashSet::default();
        let mut frontier = vec![class];
        for _ in 0..MAX_REEXPORT_DEPTH {
            let mut next = Vec::new();
            for c in frontier {
                for &sub in self.subclasses_of(c).iter() {
                    if !seen.insert(sub) {
                        continue;
                    }
                    match visit(sub) {
                        Below::Descend => next.push(sub),
                        Below::Skip => {}
                        Below::Stop => return,
                    }
                }
            }
            if next.is_empty() {
                return;
            }
            frontier = next;
        }
    }

    /// A class and its bases in the repository, in method resolution order
    /// (C3, as Python defines it; for single inheritance, the chain of bases).
    pub(super) fn linearization(&self, class: i64) -> Vec<i64> {
        if let Some(order) = self.linearizations.borrow().get(&class) {
            return order.clone();
        }
        // Re-entered through a base's resolution: cut here, remember nothing.
        if !self.linearizing.borrow_mut().insert(class) {
            self.truncated.set(true);
            return vec![class];
        }
        let outer = self.truncated.replace(false);
        let order = self.c3(class, 0).unwrap_or_else(|| vec![class]);
        self.linearizing.borrow_mut().remove(&class);
        let cut = self.truncated.get();
        self.truncated.set(outer || cut);
        if !cut {
            self.linearizations
                .borrow_mut()
                .insert(class, order.clone());
        }
        order
    }

    pub(super) fn c3(&self, class: i64, depth: usize) -> Option<Vec<i64>> {
        if depth > MAX_REEXPORT_DEPTH * 2 {
            return None;
        }
        let bases = self.bases_of(class);
        let mut sequences: Vec<Vec<i64>> = Vec::new();
        for base in bases.iter() {
            sequences.push(self.c3(*base, depth + 1)?);
        }
        sequences.push(bases.to_vec());
        let mut order = vec![class];
        loop {
            sequences.retain(|s| !s.is_empty());
            if sequences.is_empty() {
                return Some(order);
            }
            // The first head that is in no other sequence's tail.
            let head = sequences
                .iter()
                .map(|s| s[0])
                .find(|h| !sequences.iter().any(|s| s[1..].contains(h)))?;
            order.push(head);
            for s in &mut sequences {
                if s[0] == head {
                    s.remove(0);
                }
            }
        }
    }

    /// The classes in the repository that a class's bases name, in order.
    pub(super) fn bases_of(&self, class: i64) -> Rc<[i64]> {
        if let Some(found) = self.base_lists.borrow().get(&class) {
            return found.clone();
        }
        // Bases found while an evaluation was cut (a cycle through this
        // class) are partial: remembered, they would depend on which call
        // met the class first.
        if !self.basing.borrow_mut().insert(class) {
            self.truncated.set(true);
            return Rc::default();
        }
        let outer = self.truncated.replace(false);
        let found: Rc<[i64]> = self.with_whole_depth(|| self.bases_uncached(class)).into();
        self.basing.borrow_mut().remove(&class);
        let cut = self.truncated.get();
        self.truncated.set(outer || cut);
        if !cut {
            self.base_lists.borrow_mut().insert(class, found.clone());
        }
        found
    }

    pub(super) fn bases_uncached(&self, class: i64) -> Vec<i64> {
        let Some(c) = self.symbol(class) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for base in &c.bases {
            for base_class in self.classes_named_by_base(c, base) {
                if base_class != class && !out.contains(&base_class) {
                    out.push(base_class);
                }
            }
        }
        out
    }

    /// The repository classes one written base of `class` names: a plain
    /// name by scope and imports, a dotted one (`models.Model`,
    /// `unittest.TestCase`) as a whole, never by its last name alone.
    pub(super) fn classes_named_by_base(&self, class: &Symbol, base: &str) -> Vec<i64> {
        // `Alias<Arg>` (TypeScript's `extends Ensure<Options, 'key'>`):
        // a generic alias stands for what it names with its arguments in its
        // parameters' places, so the argument's types are bases too; any
        // other generic base is its name alone (`Observer<T>`).
        if let Some((name, arguments)) = base.split_once('<') {
            let mut classes = self.classes_named_by_base(class, name.trim());
            let aliased = classes
                .iter()
                .any(|id| self.symbol(*id).is_some_and(|s| s.kind == Kind::Type));
            if aliased {
                classes.extend(self.types_named(class.file, class.parent, arguments));
            }
            return classes;
        }
        let dotted = syntax::is_qualified(base);
        let found = if dotted {
            self.resolve_as_written(class.file, class.parent, base)
        } else {
            self.as_written(|| self.resolve_bare(class.file, class.parent, base))
        };
        let mut classes = Vec::new();
        for (id, confidence) in found {
            if dotted && confidence == Confidence::NameOnly {
                continue;
            }
            // A type alias (`interface A extends Options`, with `type Options
            // = {...}`): the alias, with its own members, and what it names.
            if self.symbol(id).is_some_and(|s| s.kind == Kind::Type) {
                classes.extend(self.types_named(class.file, class.parent, base));
                continue;
            }
            // Resolution maps classes to constructors; step back to the class.
            let class_id = match self.symbol(id) {
                Some(s) if !s.kind.is_class_like() => s.parent.unwrap_or(id),
                _ => id,
            };
            if self
                .symbol(class_id)
                .is_some_and(|s| s.kind.is_class_like())
                && !classes.contains(&class_id)
            {
                classes.push(class_id);
            }
        }
        classes
    }
}
