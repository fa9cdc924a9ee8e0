//! A repository's files by file name and by module path, and what a module
//! exports: how a path or a dotted name a person writes (`click/core.py`,
//! `httpx.Client.send`) is found among the indexed files and definitions.
//! Search reads a query's spans with it ([`crate::search::mentions`]) and a
//! SYMBOL argument that names no definition by its own qualified name falls
//! back to it ([`crate::graph`]), so the two agree.

use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::Result;
use crate::lang::syntax;
use crate::store::chunks::{self, NamedDefinition};
use crate::store::graph as graph_rows;

/// A name that more files or definitions than this share names none of them.
pub(crate) const MAX_AMBIGUITY: usize = 3;

/// What the modules `modules` export under `rest[0]` without defining it (a
/// package's `__init__.py` importing from its private modules, `export *
/// from`, `pub use`), followed to the definition, then `rest`'s other
/// segments as its members: `httpx.Client.send` is `send` of `Client` in
/// `httpx/_client.py`, as a user of the package writes it.
pub(crate) fn exported(
    conn: &Connection,
    table: &FileTable,
    modules: &[usize],
    rest: &[&str],
) -> Result<Vec<NamedDefinition>> {
    let mut out = Vec::new();
    let Some(first) = rest.first() else {
        return Ok(out);
    };
    for &module in modules {
        for id in graph_rows::definitions_exported_as(conn, &table.paths[module], first)? {
            let Some(exported) = chunks::definition(conn, id)? else {
                continue;
            };
            if rest.len() == 1 {
                out.push(exported);
                continue;
            }
            let members = rest[1..].join(".");
            let member = format!("{}.{members}", syntax::dotted(&exported.qualified));
            let defs = definitions_for(conn, &members)?;
            out.extend(defs.into_iter().filter(|d| {
                d.file_id == exported.file_id && syntax::dotted(&d.qualified) == member
            }));
        }
    }
    Ok(out)
}

/// The definitions a dotted name reaches through what a module exports
/// (the public path of a definition that lives in a private module), for
/// a name that matched none by its qualified name: the longest prefix that
/// is a module first.
pub(crate) fn through_exports(conn: &Connection, name: &str) -> Result<Vec<NamedDefinition>> {
    let segments: Vec<&str> = name.split(['.', ':']).filter(|s| !s.is_empty()).collect();
    if segments.len() < 2 {
        return Ok(Vec::new());
    }
    let table = FileTable::of_index(conn)?;
    for split in (1..segments.len()).rev() {
        let modules = table.for_module(&segments[..split]);
        if modules.is_empty() || modules.len() > MAX_AMBIGUITY {
            continue;
        }
        let found = exported(conn, &table, &modules, &segments[split..])?;
        if !found.is_empty() {
            return Ok(found);
        }
    }
    Ok(Vec::new())
}

/// The definitions whose qualified name ends with `name`'s segments
/// (`Context.invoke` is `click.core.Context.invoke`), by their last one.
pub(crate) fn definitions_for(conn: &Connection, name: &str) -> Result<Vec<NamedDefinition>> {
    let segments: Vec<&str> = name.split('.').filter(|s| !s.is_empty()).collect();
    let Some(last) = segments.last() else {
        return Ok(Vec::new());
    };
    // Qualified names use `.` or `::`; the tail after the last segment's name must agree.
    let tail = segments.join(".");
    let dotted_tail = format!(".{tail}");
    let mut defs = chunks::definitions_named(conn, last, 64)?;
    defs.retain(|d| {
        let qualified = syntax::dotted(&d.qualified);
        qualified == tail || qualified.ends_with(&dotted_tail)
    });
    Ok(defs)
}

/// The index's files, looked up by file name and by module name.
pub(crate) struct FileTable {
    pub ids: Vec<i64>,
    pub paths: Vec<String>,
    by_file_name: HashMap<String, Vec<usize>>,
    /// A file's module name: its stem, or its directory's name for a stem
    /// that stands for its directory (`pkg/__init__.py`, `mod.rs`, `index.js`).
    by_module: HashMap<String, Vec<usize>>,
    by_id: HashMap<i64, usize>,
}

/// The last table made, and what it was made from (see [`FileTable::of_index`]).
type Kept = Option<(FileSetKey, std::sync::Arc<FileTable>)>;
static KEPT: std::sync::Mutex<Kept> = std::sync::Mutex::new(None);

/// What tells one index's file set from another's: the database, its last
/// run, and the files' count and ids (a path added or removed changes them;
/// a new row takes a new id).
#[derive(PartialEq, Eq, Clone)]
struct FileSetKey {
    database: String,
    indexed_at: Option<String>,
    count: i64,
    max_id: i64,
    id_sum: i64,
}

impl FileTable {
    /// The table of `conn`'s files, made once per file set and process: a
    /// search of a resident process (serve, the daemon, MCP) reads the
    /// files' rows only when a run changed them.
    pub fn of_index(conn: &Connection) -> Result<std::sync::Arc<FileTable>> {
        let (count, max_id, id_sum) = chunks::file_set_summary(conn)?;
        let key = FileSetKey {
            database: conn.path().unwrap_or_default().to_string(),
            indexed_at: crate::store::meta(conn, "indexed_at")?,
            count,
            max_id,
            id_sum,
        };
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, table)) = kept.as_ref() {
            if *k == key {
                return Ok(table.clone());
            }
        }
        let table = std::sync::Arc::new(FileTable::new(chunks::file_paths(conn)?));
        *kept = Some((key, table.clone()));
        Ok(table)
    }

    pub fn new(rows: Vec<(i64, String)>) -> FileTable {
        let mut table = FileTable {
            ids: Vec::with_capacity(rows.len()),
            paths: Vec::with_capacity(rows.len()),
            by_file_name: HashMap::new(),
            by_module: HashMap::new(),
            by_id: HashMap::new(),
        };
        for (i, (id, path)) in rows.into_iter().enumerate() {
            let file_name = path.rsplit('/').next().unwrap_or(&path).to_string();
            table.by_file_name.entry(file_name).or_default().push(i);
            if let Some(module) = module_components(&path).last() {
                table
                    .by_module
                    .entry(module.to_string())
                    .or_default()
                    .push(i);
            }
            table.by_id.insert(id, i);
            table.ids.push(id);
            table.paths.push(path);
        }
        table
    }

    pub fn index_of(&self, file_id: i64) -> Option<usize> {
        self.by_id.get(&file_id).copied()
    }

    /// The files a written path names: those sharing its longest run of
    /// trailing components, when that run is the whole of one of the two
    /// or at least two components (a directory and the file agree).
    pub fn for_path(&self, path: &str) -> Vec<usize> {
        let wanted: Vec<&str> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != "." && *c != "..")
            .collect();
        let Some(file_name) = wanted.last() else {
            return Vec::new();
        };
        let Some(candidates) = self.by_file_name.get(*file_name) else {
            return Vec::new();
        };
        let shared = |i: usize| {
            let have: Vec<&str> = self.paths[i].split('/').collect();
            let common = wanted
                .iter()
                .rev()
                .zip(have.iter().rev())
                .take_while(|(a, b)| a == b)
                .count();
            let enough = common == wanted.len() || common == have.len() || common >= 2;
            enough.then_some(common)
        };
        let best = candidates.iter().filter_map(|&i| shared(i)).max();
        let found: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| best.is_some() && shared(i) == best)
            .collect();
        if found.len() > MAX_AMBIGUITY {
            return Vec::new();
        }
        found
    }

    /// The files whose module path ends with `segments` (`click.core`:
    /// `src/click/core.py`; `router`: `lib/router/index.js`).
    pub fn for_module(&self, segments: &[&str]) -> Vec<usize> {
        let Some(last) = segments.last() else {
            return Vec::new();
        };
        let Some(candidates) = self.by_module.get(*last) else {
            return Vec::new();
        };
        candidates
            .iter()
            .copied()
            .filter(|&i| module_ends_with(&self.paths[i], segments))
            .collect()
    }
}

/// Whether `path`'s module path ends with `segments` (`utils` for `lib/utils.js`).
pub(crate) fn module_ends_with(path: &str, segments: &[&str]) -> bool {
    module_components(path).ends_with(segments)
}

/// A file's path as module components: directories, then the stem unless it
/// stands for its directory (the language's package stems).
fn module_components(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('/').collect();
    let Some(file) = parts.pop() else {
        return parts;
    };
    let stem = file.split('.').next().unwrap_or(file);
    let stands_for_directory =
        crate::lang::for_path(path).is_some_and(|spec| spec.package_stems.contains(&stem));
    if !stands_for_directory || parts.is_empty() {
        parts.push(stem);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(paths: &[&str]) -> FileTable {
        FileTable::new(
            paths
                .iter()
                .enumerate()
                .map(|(i, p)| (i as i64, p.to_string()))
                .collect(),
        )
    }

    fn named(t: &FileTable, found: Vec<usize>) -> Vec<&str> {
        found.into_iter().map(|i| t.paths[i].as_str()).collect()
    }

    #[test]
    fn paths_resolve_by_their_trailing_components() {
        let t = table(&[
            "src/click/core.py",
            "src/click/types.py",
            "tests/core.py",
            "setup.py",
            "docs/conf.py",
            "lib/router/index.js",
        ]);
        let at = |p: &str| named(&t, t.for_path(p));
        assert_eq!(
            at("/usr/lib/python3/site-packages/click/core.py"),
            ["src/click/core.py"]
        );
        assert_eq!(at("src/click/types.py"), ["src/click/types.py"]);
        assert_eq!(at("/home/u/proj/setup.py"), ["setup.py"]);
        // Only the file name agrees: two files, neither the whole path.
        assert!(at("/home/u/other/core.py").is_empty());
        assert!(at("/home/u/app/conf.py").is_empty());
        assert_eq!(at("core.py"), ["src/click/core.py", "tests/core.py"]);
    }

    #[test]
    fn modules_resolve_through_package_stems() {
        let t = table(&[
            "src/click/core.py",
            "src/click/__init__.py",
            "lib/router/index.js",
            "crates/core/flags/mod.rs",
            "httpx/_client.py",
        ]);
        let module = |s: &[&str]| named(&t, t.for_module(s));
        assert_eq!(module(&["click", "core"]), ["src/click/core.py"]);
        assert_eq!(module(&["click"]), ["src/click/__init__.py"]);
        assert_eq!(module(&["router"]), ["lib/router/index.js"]);
        assert_eq!(module(&["flags"]), ["crates/core/flags/mod.rs"]);
        assert_eq!(module(&["httpx", "_client"]), ["httpx/_client.py"]);
        assert!(module(&["other", "core"]).is_empty());
    }
}
