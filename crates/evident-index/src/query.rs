//! Read-only queries over an index, each answering with [`Evidence`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{params_from_iter, Connection};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::snippet::{Budget, SnippetReader};
use crate::store;
use crate::walk;

/// The longest range `read` returns.
pub const MAX_READ_LINES: u32 = 400;

/// An open index for queries.
pub struct Index {
    root: PathBuf,
    conn: Connection,
    pub(crate) config: Config,
}

/// Filters for [`Index::symbols`].
#[derive(Debug, Clone, Default)]
pub struct SymbolQuery {
    pub kind: Option<Kind>,
    /// A file, or a directory prefix.
    pub path: Option<String>,
    /// Only exact name or qualified-name matches.
    pub exact: bool,
    /// Default 50.
    pub limit: Option<usize>,
}

/// Files that changed on disk since the last index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Staleness {
    pub modified: Vec<String>,
    pub added: Vec<String>,
    pub deleted: Vec<String>,
}

impl Staleness {
    pub fn is_stale(&self) -> bool {
        !(self.modified.is_empty() && self.added.is_empty() && self.deleted.is_empty())
    }
    pub fn changed(&self) -> usize {
        self.modified.len() + self.added.len() + self.deleted.len()
    }
}

/// What `evident status` reports.
#[derive(Debug, Clone)]
pub struct Status {
    pub root: PathBuf,
    pub index_path: PathBuf,
    pub schema_version: u32,
    /// Unix seconds of the last completed run.
    pub indexed_at: Option<u64>,
    /// `false` when the last run was interrupted.
    pub complete: bool,
    pub files_by_language: Vec<(String, u64)>,
    pub definitions: u64,
    pub imports: u64,
    pub resolved_imports: u64,
    pub calls: u64,
    /// Calls resolved to at least one definition.
    pub resolved_calls: u64,
    pub syntax_errors: u64,
    pub skipped: Vec<(String, String)>,
    pub staleness: Staleness,
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Normalises a user-given repository path (`./a//b/` → `a/b`).
fn clean_rel(path: &str) -> String {
    path.split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect::<Vec<_>>()
        .join("/")
}

impl Index {
    /// Opens the index of the repository at `root`.
    pub fn open(root: &Path) -> Result<Index> {
        let root = root.canonicalize().map_err(|e| Error::io(root, e))?;
        let conn = store::open_for_read(&root)?;
        let mut config = Config::load(&root)?;
        // The size limit the index was built with (`evident index --max-file-size`).
        if let Some(limit) = store::meta(&conn, "max_file_size")?.and_then(|v| v.parse().ok()) {
            config.max_file_size = limit;
        }
        Ok(Index { root, conn, config })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Every row of the index, ids replaced by what they point at, in a fixed
    /// order: two indexes of the same files dump equal (tests compare an
    /// incremental run with a rebuild this way).
    pub fn canonical_dump(&self) -> Result<Vec<String>> {
        crate::store::canonical_dump(&self.conn)
    }

    /// SQLite's own check of the file (`PRAGMA integrity_check`): `Ok` when whole.
    pub fn check_integrity(&self) -> Result<()> {
        let verdict: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "PRAGMA integrity_check: {verdict}"
            )))
        }
    }

    /// Whether the last indexing run finished (an interrupted one leaves
    /// `run_state` at `running`; the next run resumes it).
    pub fn last_run_complete(&self) -> Result<bool> {
        Ok(crate::store::meta(&self.conn, "run_state")?.as_deref() == Some("complete"))
    }

    pub(crate) fn reader(&self) -> SnippetReader<'_> {
        SnippetReader::new(&self.root, &self.config)
    }

    /// Accepts a path relative to the repository root or an absolute one inside it.
    pub(crate) fn repo_rel(&self, path: &str) -> String {
        let p = Path::new(path);
        if p.is_absolute() {
            if let Ok(rel) = p.strip_prefix(&self.root) {
                return clean_rel(&rel.to_string_lossy());
            }
        }
        clean_rel(path)
    }

    /// Definitions named `name`: exact matches first, then case-insensitive
    /// name matches, then qualified-name suffix matches (`Store.open`).
    pub fn symbols(&self, name: &str, q: &SymbolQuery) -> Result<Vec<Evidence>> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::InvalidArgument("symbol name is empty".into()));
        }
        let mut sql = String::from(
            "SELECT f.path, s.start_line, s.end_line, s.kind, s.name, s.qualified_name,
                CASE WHEN s.name = ?1 OR s.qualified_name = ?1 THEN 0
                     WHEN s.name = ?1 COLLATE NOCASE THEN 1 ELSE 2 END AS rank
             FROM symbols s JOIN files f ON f.id = s.file_id WHERE ",
        );
        let escaped = like_escape(name);
        let mut args: Vec<String> = vec![name.to_string()];
        if q.exact {
            sql += "(s.name = ?1 OR s.qualified_name = ?1)";
        } else {
            args.push(format!("%.{escaped}"));
            args.push(format!("%::{escaped}"));
            sql += "(s.name = ?1 COLLATE NOCASE OR s.qualified_name = ?1
                     OR s.qualified_name LIKE ?2 ESCAPE '\\' OR s.qualified_name LIKE ?3 ESCAPE '\\')";
        }
        if let Some(kind) = q.kind {
            args.push(kind.as_str().to_string());
            sql += &format!(" AND s.kind = ?{}", args.len());
        }
        if let Some(path) = &q.path {
            let rel = self.repo_rel(path);
            args.push(rel.clone());
            args.push(format!("{}/%", like_escape(&rel)));
            sql += &format!(
                " AND (f.path = ?{} OR f.path LIKE ?{} ESCAPE '\\')",
                args.len() - 1,
                args.len()
            );
        }
        sql += " ORDER BY rank, f.path, s.start_line LIMIT ";
        sql += &q.limit.unwrap_or(50).to_string();
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt
            .query_map(params_from_iter(args.iter()), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, u32>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, u32>(6)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(rows.len());
        for (path, start, end, kind, name, qualified, rank) in rows {
            let snippet = reader
                .snippet(&path, start, end, Budget::DEFINITION)
                .unwrap_or_else(|e| format!("[unavailable: {e}]"));
            let mut ev = Evidence::new(
                path,
                start,
                end,
                Kind::parse(&kind).unwrap_or(Kind::Function),
                name,
                snippet,
            );
            ev.qualified_name = Some(qualified);
            ev.reason = Some(
                match rank {
                    0 => "exact match",
                    1 => "case-insensitive match",
                    _ => "qualified-name suffix match",
                }
                .to_string(),
            );
            out.push(ev);
        }
        Ok(out)
    }

    /// The real lines `start..=end` of a repository file.
    pub fn read(&self, path: &str, start: i64, end: i64) -> Result<Evidence> {
        if start < 1 {
            return Err(Error::InvalidArgument(format!(
                "start line {start} is before line 1"
            )));
        }
        if end < start {
            return Err(Error::InvalidArgument(format!(
                "end line {end} is before start line {start}"
            )));
        }
        let span = end - start + 1;
        if span > i64::from(MAX_READ_LINES) {
            return Err(Error::Refused(format!(
                "{span} lines requested; at most {MAX_READ_LINES} lines per read: narrow the range"
            )));
        }
        let file = crate::walk::sandbox::resolve_with_docs(
            &self.root,
            &self.config.docs_dirs,
            path,
            &self.config.secrets,
        )?;
        let mut reader = self.reader();
        let total = reader.line_count(&file.rel)? as i64;
        if start > total {
            return Err(Error::InvalidArgument(format!(
                "{} has {total} lines; start line {start} is past the end",
                file.rel
            )));
        }
        let end = end.min(total);
        let snippet = reader.snippet(&file.rel, start as u32, end as u32, Budget::UNBOUNDED)?;
        let name = self
            .enclosing_name(&file.rel, start as u32, end as u32)?
            .unwrap_or_else(|| file.rel.clone());
        Ok(Evidence::new(
            file.rel,
            start as u32,
            end as u32,
            Kind::File,
            name,
            snippet,
        ))
    }

    /// The innermost indexed definition enclosing a line range, if any.
    fn enclosing_name(&self, rel: &str, start: u32, end: u32) -> Result<Option<String>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE f.path = ?1 AND s.start_line <= ?2 AND s.end_line >= ?3
             ORDER BY s.start_line DESC, s.end_line ASC LIMIT 1",
        )?;
        let mut rows = stmt.query(rusqlite::params![rel, start, end])?;
        Ok(match rows.next()? {
            Some(r) => Some(r.get(0)?),
            None => None,
        })
    }

    /// Every import site of a module, given as a module path (`pkg.mod`,
    /// `crate::store`, `./util`) or as a repository path (`pkg/mod.py`).
    pub fn importers(&self, module: &str) -> Result<Vec<Evidence>> {
        let module = module.trim();
        if module.is_empty() {
            return Err(Error::InvalidArgument("module is empty".into()));
        }
        let as_path = self.repo_rel(module);
        let escaped = like_escape(module);
        // Files the module names: by path, by module path, or by module-path suffix.
        let sql = "
            WITH targets AS (
                SELECT path FROM files
                WHERE path = ?2 OR module = ?1 OR module LIKE ?3 ESCAPE '\\' OR module LIKE ?4 ESCAPE '\\'
                UNION SELECT ?2
            )
            SELECT f.path, i.start_line, i.end_line, i.module, i.name, i.alias, i.target
            FROM imports i JOIN files f ON f.id = i.file_id
            WHERE i.target IN (SELECT path FROM targets)
               OR i.module = ?1
               OR (i.name IS NOT NULL AND i.name != '*' AND (i.module || '.' || i.name = ?1 OR i.module || '::' || i.name = ?1))
            ORDER BY f.path, i.start_line, i.name";
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt
            .query_map(
                rusqlite::params![
                    module,
                    as_path,
                    format!("%.{escaped}"),
                    format!("%::{escaped}")
                ],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, u32>(1)?,
                        r.get::<_, u32>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, Option<String>>(4)?,
                        r.get::<_, Option<String>>(5)?,
                        r.get::<_, Option<String>>(6)?,
                    ))
                },
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        // One Evidence per import statement; its bindings go in `reason`.
        struct Site {
            path: String,
            start: u32,
            end: u32,
            module: String,
            bindings: Vec<String>,
            target: Option<String>,
        }
        let mut grouped: Vec<Site> = Vec::new();
        for (path, start, end, module, name, alias, target) in rows {
            let binding = match (&name, &alias) {
                (Some(n), Some(a)) => format!("{n} as {a}"),
                (Some(n), None) => n.clone(),
                (None, Some(a)) => format!("{module} as {a}"),
                (None, None) => module.clone(),
            };
            match grouped.last_mut() {
                Some(g) if g.path == path && g.start == start && g.module == module => {
                    g.bindings.push(binding)
                }
                _ => grouped.push(Site {
                    path,
                    start,
                    end,
                    module,
                    bindings: vec![binding],
                    target,
                }),
            }
        }
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(grouped.len());
        for Site {
            path,
            start,
            end,
            module,
            bindings,
            target,
        } in grouped
        {
            let snippet = reader
                .snippet(&path, start, end, Budget::DEFINITION)
                .unwrap_or_else(|e| format!("[unavailable: {e}]"));
            let mut ev = Evidence::new(path, start, end, Kind::Import, module, snippet);
            let mut reason = format!("imports {}", bindings.join(", "));
            if let Some(target) = target {
                reason += &format!(" (resolves to {target})");
            }
            ev.reason = Some(reason);
            out.push(ev);
        }
        Ok(out)
    }

    /// The definitions of one file, in source order, each with its nesting depth.
    pub fn outline(&self, path: &str) -> Result<Vec<Evidence>> {
        let rel = self.repo_rel(path);
        let file_id: Option<i64> = self
            .conn
            .query_row("SELECT id FROM files WHERE path = ?1", [&rel], |r| r.get(0))
            .ok();
        let Some(file_id) = file_id else {
            if self.root.join(&rel).exists() {
                return Err(Error::NotIndexed(rel));
            }
            return Err(Error::NoSuchPath(PathBuf::from(rel)));
        };
        let mut stmt = self.conn.prepare(
            "SELECT id, parent_id, start_line, end_line, kind, name, qualified_name, signature
             FROM symbols WHERE file_id = ?1 ORDER BY start_line, end_line DESC, id",
        )?;
        let rows = stmt
            .query_map([file_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, u32>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut depth_of: HashMap<i64, u32> = HashMap::new();
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(rows.len());
        for (id, parent, start, end, kind, name, qualified, signature) in rows {
            let depth = parent.and_then(|p| depth_of.get(&p)).map_or(0, |d| d + 1);
            depth_of.insert(id, depth);
            let snippet = reader
                .snippet(&rel, start, end, Budget::OUTLINE)
                .unwrap_or(signature);
            let mut ev = Evidence::new(
                &rel,
                start,
                end,
                Kind::parse(&kind).unwrap_or(Kind::Function),
                name,
                snippet,
            );
            ev.qualified_name = Some(qualified);
            ev.depth = Some(depth);
            out.push(ev);
        }
        Ok(out)
    }

    /// Files changed, added or deleted on disk since they were indexed
    /// (a stat pass; content is not read).
    pub fn staleness(&self) -> Result<Staleness> {
        let walked = walk::walk(&self.root, &self.config);
        let mut stored: HashMap<String, (i64, i64)> = HashMap::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, size, mtime_ns FROM files")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?))))? {
            let (path, stat) = row?;
            stored.insert(path, stat);
        }
        let skipped: std::collections::HashSet<String> = self
            .conn
            .prepare_cached("SELECT path FROM skipped")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let mut s = Staleness::default();
        for c in &walked.candidates {
            match stored.remove(&c.rel) {
                Some((size, mtime)) if size == c.size as i64 && mtime == c.mtime_ns => {}
                Some(_) => s.modified.push(c.rel.clone()),
                // Files skipped at index time (binary, unreadable) are not new.
                None if skipped.contains(&c.rel) => {}
                None => s.added.push(c.rel.clone()),
            }
        }
        s.deleted = stored.into_keys().collect();
        s.deleted.sort();
        Ok(s)
    }

    pub fn status(&self) -> Result<Status> {
        let count = |sql: &str| -> Result<u64> {
            Ok(self.conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64)
        };
        let files_by_language = self
            .conn
            .prepare("SELECT lang, count(*) FROM files GROUP BY lang ORDER BY count(*) DESC, lang")?
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let skipped = self
            .conn
            .prepare("SELECT path, reason FROM skipped ORDER BY path")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(Status {
            root: self.root.clone(),
            index_path: store::index_path(&self.root),
            schema_version: store::SCHEMA_VERSION,
            indexed_at: store::meta(&self.conn, "indexed_at")?.and_then(|v| v.parse().ok()),
            complete: store::meta(&self.conn, "run_state")?.as_deref() == Some("complete"),
            files_by_language,
            definitions: count("SELECT count(*) FROM symbols")?,
            imports: count("SELECT count(*) FROM imports")?,
            resolved_imports: count("SELECT count(*) FROM imports WHERE target IS NOT NULL")?,
            calls: count("SELECT count(*) FROM calls")?,
            resolved_calls: count("SELECT count(DISTINCT call_id) FROM edges")?,
            syntax_errors: count("SELECT count(*) FROM files WHERE syntax_errors = 1")?,
            skipped,
            staleness: self.staleness()?,
        })
    }
}

/// The repository root for a query started in `start`: the nearest ancestor
/// holding `.evident/index.db`, else the nearest git work tree, else `start`.
pub fn find_root(start: &Path) -> PathBuf {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    if let Some(found) = start.ancestors().find(|d| store::index_path(d).is_file()) {
        return found.to_path_buf();
    }
    if let Some(found) = start.ancestors().find(|d| d.join(".git").exists()) {
        return found.to_path_buf();
    }
    start
}
