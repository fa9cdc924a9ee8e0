//! Which calls a run must resolve again after files changed.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use super::fact_diff;
use crate::error::Result;
use crate::store::graph as rows;

/// The edges into a changed file and its imports, before its rows change.
#[derive(Debug, Default)]
pub(crate) struct EdgesInto {
    /// `(call, old callee, qualified name, kind)`.
    edges: Vec<(i64, i64, String, String)>,
    imports: Vec<String>,
    /// Its definitions as other files read them ([`rows::definition_surface`]).
    surface: Vec<String>,
}

/// Which calls a run must (re-)resolve.
///
/// A call's resolution can only change when (a) its own file changed, (b) it
/// resolved into a changed file before (its old edge; when the file's flow
/// facts and imports are the same, the edge moves onto the new rows
/// instead), (c) its file imports a changed file (directly, or through a
/// changed re-exporting file) whose surface changed (not a body edit:
/// [`Invalidation::surface_kept`]), (d) the set of definitions carrying its name
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
    /// Files that were there before and whose facts for the types that flow
    /// changed only by definitions added or removed, with what belongs to
    /// them ([`fact_diff::names_only_change`]): those definitions' names.
    /// Only the files that see such a file and spell one of its names
    /// resolve again, with every file that imports them.
    pub names_changed: HashMap<String, HashSet<String>>,
    /// Per file of [`Self::names_changed`]: the qualified names of the
    /// definitions added or removed.
    pub definitions_changed: HashMap<String, HashSet<String>>,
    /// A constructor moved where names do not follow it
    /// ([`fact_diff::moves_constructors`]), or came or went with a file.
    pub constructors_moved: bool,
    /// Per changed file, until its new rows are noted: how many of its
    /// definitions (nested ones too) were constructors.
    pub constructors_before: HashMap<String, i64>,
    /// Names defined in files whose classes' bases changed: a `self.m()`
    /// in a base class may now reach (or no longer reach) a subclass's `m`.
    pub rebased_names: HashSet<String>,
    /// The bases named in changed `class X(...)` lines, before and after:
    /// their classes' `self.m()` calls may now reach a subclass or leave the
    /// repository through one.
    pub rebased_bases: HashSet<String>,
    /// Per changed file, until its new rows are noted: its module before.
    /// A file that declares another package leaves one package scope for
    /// another with the same names, which no count of names would notice.
    pub module_before: HashMap<String, String>,
    /// Changed files whose imports, definitions (names, kinds, order,
    /// declared or defined) and flow facts are what they were: a body edit.
    /// Their importers' calls resolve as before, so they are not marked
    /// for importing them (rule (c)).
    pub surface_kept: HashSet<String>,
    /// Changed files whose imports and definitions are what they were but
    /// for the definitions added or removed ([`Self::names_changed`]):
    /// their importers that spell none of those names resolve as before.
    pub names_only: HashSet<String>,
}

/// What a file tells the types that flow in other files: bindings at its top
/// level, in class bodies, of attributes and of returns, and class bases.
/// Locals are left out: they only matter to the file's own calls.
fn flow_facts(facts: &crate::lang::extract::FileFacts) -> Vec<String> {
    let mut out = Vec::new();
    for a in &facts.assignments {
        let scope = a.enclosing.and_then(|i| facts.definitions.get(i));
        if crate::lang::extract::is_exported_binding(scope.map(|d| d.kind), &a.name) {
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
        let mut constructors = 0;
        for name in rows::names_defined_in(conn, file_id)? {
            constructors += i64::from(is_constructor(&name));
            *self.name_balance.entry(name).or_default() += 1;
        }
        self.constructors_before
            .insert(path.to_string(), constructors);
        self.flow_before
            .insert(path.to_string(), rows::flow_facts_of(conn, file_id)?);
        if let Some((_, module)) = rows::file_lines_and_module(conn, path)? {
            self.module_before.insert(path.to_string(), module);
        }
        // Resolved again unless `note_written` moves them.
        let edges = rows::edges_into(conn, file_id)?;
        let imports = rows::import_rows(conn, file_id)?;
        let surface = rows::definition_surface(conn, file_id)?;
        self.edges_into.insert(
            path.to_string(),
            EdgesInto {
                edges,
                imports,
                surface,
            },
        );
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
        if self.all {
            return Ok(());
        }
        let imports_kept = rows::import_rows(conn, file_id)? == before.imports;
        let surface = rows::definition_surface(conn, file_id)?;
        if imports_kept
            && !self.flow_changed.contains(path)
            && !self.names_changed.contains_key(path)
            && surface == before.surface
        {
            self.surface_kept.insert(path.to_string());
        }
        // The other definitions as they were (a prototype that became a
        // definition is no change of names).
        let others_kept = self.definitions_changed.get(path).is_some_and(|changed| {
            fact_diff::surface_outside(&surface, changed)
                == fact_diff::surface_outside(&before.surface, changed)
        });
        if imports_kept && others_kept {
            self.names_only.insert(path.to_string());
        }
        if before.edges.is_empty() {
            return Ok(());
        }
        if self.flow_changed.contains(path) || !imports_kept {
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
        let existed = self.flow_before.contains_key(path);
        let before = self.flow_before.remove(path).unwrap_or_default();
        let moved = self
            .module_before
            .remove(path)
            .is_some_and(|m| m != file.module);
        if moved {
            self.rebased_names
                .extend(file.definitions.iter().map(|d| d.name.clone()));
        }
        self.note_constructors(path, file, &before, &facts, existed && !moved);
        if before != facts {
            let only_names = fact_diff::names_only_change(&before, &facts, &file.module)
                .filter(|_| existed && !moved);
            match only_names {
                Some(changed) => {
                    self.names_changed
                        .entry(path.to_string())
                        .or_default()
                        .extend(changed);
                    self.definitions_changed
                        .entry(path.to_string())
                        .or_default()
                        .extend(fact_diff::changed_definitions(&before, &facts));
                }
                None => {
                    self.flow_changed.insert(path.to_string());
                }
            }
            if let Some((names, bases)) = fact_diff::rebased(&before, &facts) {
                self.rebased_names.extend(names);
                self.rebased_bases.extend(bases);
            }
        }
    }

    /// Notes whether a constructor moved where names do not follow it:
    /// one of a kept class (`kept`: the file was there, in the same module),
    /// one that came or went with its file, or one other files cannot reach
    /// by name (in a class defined in a function).
    fn note_constructors(
        &mut self,
        path: &str,
        file: &crate::lang::extract::FileFacts,
        before: &[String],
        facts: &[String],
        kept: bool,
    ) {
        let reachable =
            |facts: &[String]| fact_diff::constructor_count(facts.iter(), is_constructor);
        let all_now = file
            .definitions
            .iter()
            .filter(|d| is_constructor(&d.name))
            .count() as i64;
        let unreachable_moved = self
            .constructors_before
            .remove(path)
            .is_some_and(|all_before| all_now - all_before != reachable(facts) - reachable(before));
        self.constructors_moved |= unreachable_moved
            || if kept {
                fact_diff::moves_constructors(before, facts, is_constructor)
            } else {
                reachable(before) > 0 || reachable(facts) > 0
            };
    }

    /// Whether every call must be resolved again because a constructor
    /// moved: a kept class's, or one that came or went with its file.
    pub(super) fn constructors_changed(&self) -> bool {
        let removed = self.flow_before.values();
        self.constructors_moved
            || removed
                .into_iter()
                .any(|facts| fact_diff::defines_constructor(facts.iter(), is_constructor))
    }

    /// Files whose flow facts changed, removed files with facts included.
    pub(super) fn flow_changed_paths(&self) -> impl Iterator<Item = &String> {
        let removed = self
            .flow_before
            .iter()
            .filter(|(_, facts)| !facts.is_empty())
            .map(|(path, _)| path);
        self.flow_changed.iter().chain(removed)
    }

    /// Names whose number of definitions changed, and those defined by
    /// classes whose bases changed.
    pub(super) fn dirty_names(&self) -> impl Iterator<Item = &String> {
        self.name_balance
            .iter()
            .filter(|(_, n)| **n != 0)
            .map(|(name, _)| name)
            .chain(&self.rebased_names)
    }
}

/// A constructor that subclasses inherit (`__init__`, `constructor`).
fn is_constructor(name: &str) -> bool {
    crate::lang::LANGUAGES
        .iter()
        .any(|l| l.inherited_constructors && l.constructors.contains(&name))
}
