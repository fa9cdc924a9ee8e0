//! Which files can see what a changed file defines, for an incremental run:
//! the files that import it (or its directory, a Go or Java package), the
//! other files of its package where a package spans files without imports
//! ([`crate::lang::LanguageSpec::directory_is_package`]), and, through glob
//! imports, what sees those.

use std::collections::{HashMap, HashSet};

use rusqlite::{params, Connection};

use crate::error::Result;
use crate::lang::extract::is_exported_binding;

/// The files that import any of `paths` or share a package with one,
/// directly or through other such files, `paths` themselves left out.
pub(crate) fn importers_closure<'a>(
    conn: &Connection,
    paths: impl Iterator<Item = &'a String>,
) -> Result<Vec<String>> {
    let mut seeing = Seeing::new(conn);
    let mut seen: HashSet<String> = paths.cloned().collect();
    let mut frontier: Vec<String> = seen.iter().cloned().collect();
    let mut out = Vec::new();
    while let Some(path) = frontier.pop() {
        for (importer, _, _) in seeing.of(&path)? {
            if seen.insert(importer.clone()) {
                out.push(importer.clone());
                frontier.push(importer);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The files that see a definition a changed file added or removed and
/// spell its name as a word, per `(changed file, names)`.
/// What an import brings in, by name or by glob (`from .a import *`,
/// `export * from`, `use a::*`), is seen by what sees the importer, however
/// deep. A file resolves only through what its own rows spell, so one that
/// spells none of the names resolves as before, and one that spells them
/// only in calls and imports tells other files nothing new of its own.
pub(crate) fn importers_spelling(
    conn: &Connection,
    changed: &HashMap<String, HashSet<String>>,
) -> Result<Spellers> {
    let mut seeing = Seeing::new(conn);
    let mut found: HashMap<String, Spelling> = HashMap::new();
    let mut calls: HashMap<String, HashSet<i64>> = HashMap::new();
    for (path, names) in changed {
        note_spelled_names(conn, names)?;
        let mut seen: HashSet<String> = [path.clone()].into();
        // A file that sees several of the files on the way is read once
        // for these names: how it spells them does not change.
        let mut examined: HashSet<i64> = HashSet::new();
        let mut frontier = vec![path.clone()];
        while let Some(seen_by) = frontier.pop() {
            // A glob import of a module whose `__all__` lists none of the
            // names brings none of them.
            let names_pass = names.iter().map(String::as_str);
            let glob_brings = super::scopes::glob_of_brings_any(conn, &seen_by, names_pass)?;
            for (importer, id, glob) in seeing.of(&seen_by)? {
                if glob && !glob_brings {
                    continue;
                }
                let unread = examined.insert(id);
                if unread && found.get(&importer) != Some(&Spelling::Leaking) {
                    let (how, spelled) = if may_spell(conn, id)? {
                        spelling(conn, id, names)?
                    } else {
                        (Spelling::None, Vec::new())
                    };
                    if !spelled.is_empty() {
                        calls.entry(importer.clone()).or_default().extend(spelled);
                    }
                    let known = found.entry(importer.clone()).or_insert(how);
                    *known = (*known).max(how);
                }
                let passes_on = glob || found.get(&importer) == Some(&Spelling::Imported);
                if passes_on && seen.insert(importer.clone()) {
                    frontier.push(importer);
                }
            }
        }
    }
    let mut leaking: Vec<String> = (found.iter())
        .filter(|(_, how)| **how == Spelling::Leaking)
        .map(|(path, _)| path.clone())
        .collect();
    leaking.sort();
    let mut only_calls: Vec<i64> = (found.iter())
        .filter(|(_, how)| **how < Spelling::Leaking)
        .flat_map(|(path, _)| calls.remove(path).unwrap_or_default())
        .collect();
    only_calls.sort_unstable();
    Ok(Spellers {
        calls: only_calls,
        leaking,
    })
}

/// The names [`may_spell`] looks for.
fn note_spelled_names(conn: &Connection, names: &HashSet<String>) -> Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS spelled_names(name TEXT PRIMARY KEY) WITHOUT ROWID;
         DELETE FROM spelled_names;",
    )?;
    let mut insert = conn.prepare_cached("INSERT OR IGNORE INTO spelled_names VALUES (?1)")?;
    for name in names {
        insert.execute([name])?;
    }
    Ok(())
}

/// Whether a file's rows may spell one of the noted names, by substring in
/// SQL: most files that see a changed file spell none, and this says so
/// without reading their rows out (a word is a substring, so a file it
/// rules out spells none). Each column is searched alone: joining them
/// first made a string per row.
fn may_spell(conn: &Connection, file_id: i64) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM calls c, spelled_names n WHERE c.file_id = ?1
                 AND (instr(c.callee, n.name) OR instr(c.arguments, n.name)))
             OR EXISTS (SELECT 1 FROM assignments a, spelled_names n WHERE a.file_id = ?1
                 AND (instr(a.name, n.name) OR instr(a.value, n.name)))
             OR EXISTS (SELECT 1 FROM imports i, spelled_names n WHERE i.file_id = ?1
                 AND (instr(i.module, n.name) OR instr(i.name, n.name) OR instr(i.alias, n.name)))
             OR EXISTS (SELECT 1 FROM symbols s, spelled_names n WHERE s.file_id = ?1
                 AND (instr(s.name, n.name) OR instr(s.signature, n.name)
                      OR instr(s.bases, n.name)))",
    )?;
    Ok(stmt.query_row([file_id], |r| r.get(0))?)
}

/// The files [`importers_spelling`] found.
pub(crate) struct Spellers {
    /// In the files that spell a name (in imports, calls and
    /// locals), the calls that can resolve differently: those that spell
    /// one or an alias an import gives it, and those of the functions
    /// whose locals hold one.
    pub calls: Vec<i64>,
    /// Those that spell one where other files read them: all their calls
    /// resolve again, and what the types that flow tell their importers
    /// may change.
    pub leaking: Vec<String>,
}

/// `(lang, "d:" directory or "m:" module)` → the files there, `(path, id)`.
type Packages = HashMap<(String, String), Vec<(String, i64)>>;

/// Answers "who sees this file", with the package table read once, on first
/// need.
struct Seeing<'c> {
    conn: &'c Connection,
    /// `(lang, directory)` and `(lang, module)` → files, for the languages
    /// whose packages span files.
    packages: Option<Packages>,
}

impl<'c> Seeing<'c> {
    fn new(conn: &'c Connection) -> Self {
        Seeing {
            conn,
            packages: None,
        }
    }

    /// `(path, id, through a glob)` of each file that sees `path`.
    fn of(&mut self, path: &str) -> Result<Vec<(String, i64, bool)>> {
        let directory = parent_dir(path);
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT f.path, f.id, coalesce(i.name = '*', 0)
             FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target IN (?1, ?2)",
        )?;
        let mut out: Vec<(String, i64, bool)> = stmt
            .query_map(params![path, directory], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let file: Option<(String, String)> = self
            .conn
            .prepare_cached("SELECT lang, module FROM files WHERE path = ?1")?
            .query_row([path], |r| Ok((r.get(0)?, r.get(1)?)))
            .ok();
        let Some((lang, module)) = file else {
            return Ok(out);
        };
        if !crate::lang::by_name(&lang).is_some_and(|l| l.directory_is_package) {
            return Ok(out);
        }
        let packages = self.packages()?;
        for key in [
            (lang.clone(), format!("d:{directory}")),
            (lang, format!("m:{module}")),
        ] {
            for (peer, id) in packages.get(&key).into_iter().flatten() {
                if peer != path {
                    out.push((peer.clone(), *id, false));
                }
            }
        }
        Ok(out)
    }

    fn packages(&mut self) -> Result<&Packages> {
        if self.packages.is_none() {
            let mut map = Packages::new();
            let mut stmt = self
                .conn
                .prepare("SELECT path, id, lang, module FROM files")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let (path, id, lang, module): (String, i64, String, String) =
                    (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
                if !crate::lang::by_name(&lang).is_some_and(|l| l.directory_is_package) {
                    continue;
                }
                let directory = format!("d:{}", parent_dir(&path));
                for key in [directory, format!("m:{module}")] {
                    map.entry((lang.clone(), key))
                        .or_default()
                        .push((path.clone(), id));
                }
            }
            self.packages = Some(map);
        }
        Ok(self.packages.as_ref().expect("just loaded"))
    }
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// How a file spells a name, as a whole word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Spelling {
    None,
    /// Only in calls: what they resolve to stays in the file's own edges.
    InCalls,
    /// In an import too: the file passes the name on to what imports it.
    Imported,
    /// In what other files read of it too: an assignment (a return, a
    /// top-level value, an attribute), a definition's signature or bases.
    Leaking,
}

/// Whether `text` spells any of `names` as a whole word.
fn spells(text: &str, names: &HashSet<String>) -> bool {
    // Most texts contain none of a few names: a substring search says so
    // without hashing every word.
    if names.len() <= 8 && !names.iter().any(|n| text.contains(n.as_str())) {
        return false;
    }
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|word| names.contains(word))
}

/// How `file_id`'s rows that resolution reads spell any of `names`, and,
/// unless it leaks one, the calls that can resolve differently. A name an
/// import binds under an alias is spelled by its alias from then on.
fn spelling(
    conn: &Connection,
    file_id: i64,
    names: &HashSet<String>,
) -> Result<(Spelling, Vec<i64>)> {
    let aliases = imports_spelling(conn, file_id, names)?;
    let mut names = std::borrow::Cow::Borrowed(names);
    if let Some(aliases) = aliases.as_ref().filter(|a| !a.is_empty()) {
        names.to_mut().extend(aliases.iter().cloned());
    }
    let scopes = FunctionScopes::of(conn, file_id)?;
    let bindings = bindings_spelling(conn, file_id, &names, &scopes)?;
    let leaking = bindings == Bindings::Exported || signatures_spell(conn, file_id, &names)?;
    if leaking {
        return Ok((Spelling::Leaking, Vec::new()));
    }
    let holding = match bindings {
        Bindings::Locals(functions) => functions,
        _ => HashSet::new(),
    };
    let calls = calls_spelling(conn, file_id, &names, &scopes, &holding)?;
    let how = if aliases.is_some() {
        Spelling::Imported
    } else if calls.is_empty() && holding.is_empty() {
        Spelling::None
    } else {
        Spelling::InCalls
    };
    Ok((how, calls))
}

/// The aliases of `file_id`'s imports that spell one of `names` (empty when
/// none has one); `None` when no import spells one.
fn imports_spelling(
    conn: &Connection,
    file_id: i64,
    names: &HashSet<String>,
) -> Result<Option<HashSet<String>>> {
    let mut stmt = conn.prepare_cached(
        "SELECT module || ' ' || coalesce(name, ''), alias FROM imports WHERE file_id = ?1",
    )?;
    let mut rows = stmt.query([file_id])?;
    let mut found: Option<HashSet<String>> = None;
    while let Some(r) = rows.next()? {
        let (text, alias): (String, Option<String>) = (r.get(0)?, r.get(1)?);
        let alias_spells = alias.as_deref().is_some_and(|a| spells(a, names));
        if alias_spells || spells(&text, names) {
            found.get_or_insert_with(HashSet::new).extend(alias);
        }
    }
    Ok(found)
}

/// Whether a definition of `file_id` spells one of `names` in its name,
/// signature or bases: what other files read of it.
fn signatures_spell(conn: &Connection, file_id: i64, names: &HashSet<String>) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT name || ' ' || signature || ' ' || coalesce(bases, '')
         FROM symbols WHERE file_id = ?1",
    )?;
    let mut rows = stmt.query([file_id])?;
    while let Some(r) = rows.next()? {
        if spells(&r.get::<_, String>(0)?, names) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The calls of `file_id` that spell one of `names` (callee or arguments),
/// or sit in one of the `holding` functions, whose locals hold one.
fn calls_spelling(
    conn: &Connection,
    file_id: i64,
    names: &HashSet<String>,
    scopes: &FunctionScopes,
    holding: &HashSet<i64>,
) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, callee || ' ' || coalesce(arguments, ''), enclosing_id
         FROM calls WHERE file_id = ?1",
    )?;
    let mut rows = stmt.query([file_id])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let (id, text, enclosing): (i64, String, Option<i64>) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let in_holding = enclosing
            .and_then(|e| scopes.outermost_function(e))
            .is_some_and(|f| holding.contains(&f));
        if in_holding || spells(&text, names) {
            out.push(id);
        }
    }
    Ok(out)
}

/// How a file's bindings spell some names ([`bindings_spelling`]).
#[derive(Debug, PartialEq, Eq)]
enum Bindings {
    None,
    /// Only locals, in these outermost functions.
    Locals(HashSet<i64>),
    /// A binding other files read.
    Exported,
}

/// How `file_id`'s bindings spell `names`: exported when a binding other
/// files read ([`is_exported_binding`]) does, directly or through locals
/// of its function that hold one (`p = partition(x)` … `return p`);
/// locals when only locals do (what they hold matters to the calls of
/// their function); none when none does. A function's locals are seen by
/// the functions nested in it, so locals are kept per outermost function.
fn bindings_spelling(
    conn: &Connection,
    file_id: i64,
    names: &HashSet<String>,
    scopes: &FunctionScopes,
) -> Result<Bindings> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.name, a.value, a.enclosing_id FROM assignments a WHERE a.file_id = ?1",
    )?;
    let mut rows = stmt.query([file_id])?;
    // Per outermost function: its exported bindings' text, and its locals.
    let mut functions: HashMap<i64, FunctionBindings> = HashMap::new();
    while let Some(r) = rows.next()? {
        let (name, value, enclosing): (String, String, Option<i64>) =
            (r.get(0)?, r.get(1)?, r.get(2)?);
        let text = format!("{name} {value}");
        let function = enclosing.and_then(|id| scopes.outermost_function(id));
        if is_exported_binding(enclosing.and_then(|id| scopes.kind(id)), &name) {
            if spells(&text, names) {
                return Ok(Bindings::Exported);
            }
            if let Some(function) = function {
                functions.entry(function).or_default().0.push(text);
            }
        } else if let Some(function) = function {
            functions.entry(function).or_default().1.push((name, value));
        }
    }
    let mut spelled = HashSet::new();
    for (function, (exported, locals)) in &functions {
        let holding = locals_holding(locals, names);
        if !holding.is_empty() {
            if exported.iter().any(|text| spells(text, &holding)) {
                return Ok(Bindings::Exported);
            }
            spelled.insert(*function);
        }
    }
    Ok(if spelled.is_empty() {
        Bindings::None
    } else {
        Bindings::Locals(spelled)
    })
}

/// A function's exported bindings (`name value`) and its locals (`(name, value)`).
type FunctionBindings = (Vec<String>, Vec<(String, String)>);

/// The locals that hold one of `names`, directly or through another local.
fn locals_holding(locals: &[(String, String)], names: &HashSet<String>) -> HashSet<String> {
    let mut holding: HashSet<String> = HashSet::new();
    loop {
        let before = holding.len();
        for (name, value) in locals {
            if !holding.contains(name) && (spells(value, names) || spells(value, &holding)) {
                holding.insert(name.clone());
            }
        }
        if holding.len() == before {
            return holding;
        }
    }
}

/// A file's definitions: kind and parent, to find a binding's function.
struct FunctionScopes(HashMap<i64, (Option<crate::evidence::Kind>, Option<i64>)>);

impl FunctionScopes {
    fn of(conn: &Connection, file_id: i64) -> Result<FunctionScopes> {
        let mut stmt =
            conn.prepare_cached("SELECT id, kind, parent_id FROM symbols WHERE file_id = ?1")?;
        let rows = stmt.query_map([file_id], |r| {
            let kind: String = r.get(1)?;
            Ok((r.get(0)?, (crate::evidence::Kind::parse(&kind), r.get(2)?)))
        })?;
        Ok(FunctionScopes(rows.collect::<rusqlite::Result<_>>()?))
    }

    fn kind(&self, id: i64) -> Option<crate::evidence::Kind> {
        self.0.get(&id).and_then(|(kind, _)| *kind)
    }

    /// The outermost definition, from `id` up, with no class between: the
    /// function whose locals `id`'s bindings can see. `None` for a class.
    fn outermost_function(&self, id: i64) -> Option<i64> {
        let class_like = |id: i64| self.kind(id).is_some_and(|k| k.is_class_like());
        if class_like(id) {
            return None;
        }
        let mut function = id;
        while let Some(parent) = self.0.get(&function).and_then(|(_, p)| *p) {
            if class_like(parent) {
                break;
            }
            function = parent;
        }
        Some(function)
    }
}
