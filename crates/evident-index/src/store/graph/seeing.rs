//! Which files can see what a changed file defines, for an incremental run:
//! the files that import it (or its directory, a Go or Java package), the
//! other files of its package where a package spans files without imports
//! ([`crate::lang::LanguageSpec::directory_is_package`]), and, through glob
//! imports, what sees those.

use std::collections::{HashMap, HashSet};

use rusqlite::{params, Connection};

use crate::error::Result;

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
/// spell its name as a word, per `(changed file, names)`: `(all, leaking)`,
/// where `leaking` are those that spell it where other files read them too.
/// What an import brings in, by name or by glob (`from .a import *`,
/// `export * from`, `use a::*`), is seen by what sees the importer, however
/// deep. A file resolves only through what its own rows spell, so one that
/// spells none of the names resolves as before, and one that spells them
/// only in calls and imports tells other files nothing new of its own.
pub(crate) fn importers_spelling(
    conn: &Connection,
    changed: &HashMap<String, HashSet<String>>,
) -> Result<(Vec<String>, Vec<String>)> {
    let mut seeing = Seeing::new(conn);
    let mut found: HashMap<String, Spelling> = HashMap::new();
    for (path, names) in changed {
        let mut seen: HashSet<String> = [path.clone()].into();
        let mut frontier = vec![path.clone()];
        while let Some(seen_by) = frontier.pop() {
            for (importer, id, glob) in seeing.of(&seen_by)? {
                if found.get(&importer) != Some(&Spelling::Leaking) {
                    let how = spelling(conn, id, names)?;
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
    let mut all: Vec<String> = found
        .iter()
        .filter(|(_, how)| **how != Spelling::None)
        .map(|(path, _)| path.clone())
        .collect();
    let mut leaking: Vec<String> = found
        .into_iter()
        .filter(|(_, how)| *how == Spelling::Leaking)
        .map(|(path, _)| path)
        .collect();
    all.sort();
    leaking.sort();
    Ok((all, leaking))
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

/// How `file_id`'s rows that resolution reads spell any of `names`.
fn spelling(conn: &Connection, file_id: i64, names: &HashSet<String>) -> Result<Spelling> {
    let spells = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .any(|word| names.contains(word))
    };
    let read = |sql: &str| -> Result<bool> {
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query([file_id])?;
        while let Some(r) = rows.next()? {
            if spells(&r.get::<_, String>(0)?) {
                return Ok(true);
            }
        }
        Ok(false)
    };
    let leaking = read("SELECT name || ' ' || value FROM assignments WHERE file_id = ?1")?
        || read(
            "SELECT name || ' ' || signature || ' ' || coalesce(bases, '')
             FROM symbols WHERE file_id = ?1",
        )?;
    let imported = || {
        read(
            "SELECT module || ' ' || coalesce(name, '') || ' ' || coalesce(alias, '')
             FROM imports WHERE file_id = ?1",
        )
    };
    Ok(if leaking {
        Spelling::Leaking
    } else if imported()? {
        Spelling::Imported
    } else if read("SELECT callee || ' ' || coalesce(arguments, '') FROM calls WHERE file_id = ?1")?
    {
        Spelling::InCalls
    } else {
        Spelling::None
    })
}
