//! Read-only queries over an index, each answering with [`Evidence`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::limits;
use crate::snippet::{Budget, SnippetReader};
use crate::store;
use crate::store::reads::{self, ImportBinding, OutlineRow, SymbolFilter, SymbolMatch};
use crate::walk::memory::{self, WalkMemory};

/// The longest range `read` returns.
pub const MAX_READ_LINES: u32 = 400;

/// An open index for queries.
pub struct Index {
    root: PathBuf,
    conn: Connection,
    pub(crate) config: Config,
    read_only_medium: bool,
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
    /// Calls to a name imported from outside the repository.
    pub external_calls: u64,
    /// Calls to the language's own functions and objects.
    pub builtin_calls: u64,
    pub syntax_errors: u64,
    pub skipped: Vec<(String, String)>,
    pub staleness: Staleness,
    /// What came from a compiler's index (SCIP), when one is in use.
    pub scip: Option<crate::store::scip::ScipStatus>,
    /// The commit whose history search's history signal reads, and how
    /// many of its commits are kept; `None` outside git.
    pub history: Option<HistoryStatus>,
}

/// The history the index keeps ([`Status::history`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryStatus {
    pub head: String,
    pub commits: u64,
}

/// The one JSON shape of a status, for `evident status --json` and the web
/// page alike.
impl serde::Serialize for Status {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serde_json::json!({
            "root": self.root,
            "index_path": self.index_path,
            "schema_version": self.schema_version,
            "indexed_at": self.indexed_at,
            "complete": self.complete,
            "files_by_language": self.files_by_language.iter()
                .map(|(lang, files)| serde_json::json!({"lang": lang, "files": files}))
                .collect::<Vec<_>>(),
            "definitions": self.definitions,
            "imports": self.imports,
            "resolved_imports": self.resolved_imports,
            "calls": self.calls,
            "resolved_calls": self.resolved_calls,
            "external_calls": self.external_calls,
            "builtin_calls": self.builtin_calls,
            "syntax_errors": self.syntax_errors,
            "skipped": self.skipped.iter()
                .map(|(path, reason)| serde_json::json!({"path": path, "reason": reason}))
                .collect::<Vec<_>>(),
            "stale": {
                "modified": self.staleness.modified,
                "added": self.staleness.added,
                "deleted": self.staleness.deleted,
            },
            "scip": self.scip.as_ref().map(|scip| serde_json::json!({
                "source": scip.source,
                "fresh": scip.fresh,
                "stale": scip.stale,
                "not_indexed": scip.not_indexed,
                "precise_edges": scip.precise_edges,
                "stale_examples": scip.stale_examples.iter()
                    .map(|(path, reason)| serde_json::json!({"path": path, "reason": reason}))
                    .collect::<Vec<_>>(),
            })),
            "history": self.history.as_ref().map(|h| serde_json::json!({
                "head": h.head,
                "commits": h.commits,
            })),
        })
        .serialize(serializer)
    }
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
        let opened = store::open_index_for_read(&root)?;
        let config = Config::of_index(&root, &opened.conn)?;
        Ok(Index {
            root,
            conn: opened.conn,
            config,
            read_only_medium: opened.read_only_medium,
        })
    }

    /// The index lies on a read-only file system: it answers as of its last
    /// run, and no run can bring it up to date there.
    pub fn read_only_medium(&self) -> bool {
        self.read_only_medium
    }

    /// SQLite's page-level check (`PRAGMA quick_check`): [`Error::Damaged`]
    /// when a page is malformed. Reads the whole file.
    pub fn check_damage(&self) -> Result<()> {
        store::quick_check(&self.conn)
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
        reads::integrity_check(&self.conn)
    }

    /// Whether the last indexing run finished (an interrupted one leaves
    /// `run_state` at `in_progress`; the next run resumes it).
    pub fn last_run_complete(&self) -> Result<bool> {
        Ok(crate::store::meta(&self.conn, "run_state")?.as_deref() == Some("complete"))
    }

    pub(crate) fn reader(&self) -> SnippetReader<'_> {
        SnippetReader::new(&self.root, &self.config)
    }

    /// Accepts a path relative to the repository root or an absolute one
    /// inside it; refuses an empty, overlong or outside one.
    pub(crate) fn repo_rel(&self, path: &str) -> Result<String> {
        let path = limits::checked("path", path, limits::MAX_PATH_CHARS)?;
        let p = Path::new(path);
        if p.is_absolute() {
            return match p.strip_prefix(&self.root) {
                Ok(rel) => Ok(clean_rel(&rel.to_string_lossy())),
                Err(_) => Err(Error::Refused(format!(
                    "{path} is outside the repository ({})",
                    self.root.display()
                ))),
            };
        }
        Ok(clean_rel(path))
    }

    /// Definitions named `name`: exact matches first, then case-insensitive
    /// name matches, then qualified-name suffix matches (`Store.open`), then
    /// the public path a package re-exports, then a name a function's first
    /// line declares.
    pub fn symbols(&self, name: &str, q: &SymbolQuery) -> Result<Vec<Evidence>> {
        self.find_symbols(name, q, true)
    }

    /// As [`Index::symbols`], without the last fallback: for a caller that
    /// keeps only definitions of that very name, which it never yields.
    pub(crate) fn symbols_of_that_name(
        &self,
        name: &str,
        q: &SymbolQuery,
    ) -> Result<Vec<Evidence>> {
        self.find_symbols(name, q, false)
    }

    fn find_symbols(
        &self,
        name: &str,
        q: &SymbolQuery,
        first_lines: bool,
    ) -> Result<Vec<Evidence>> {
        let name = limits::name("symbol name", name)?;
        let path = q.path.as_deref().map(|p| self.repo_rel(p)).transpose()?;
        let filter = SymbolFilter {
            name,
            exact: q.exact,
            kind: q.kind.map(|k| k.as_str()),
            path: path.as_deref(),
            limit: q.limit.unwrap_or(50),
        };
        let mut rows = reads::symbol_matches(&self.conn, &filter)?;
        if rows.is_empty() {
            rows = self.exported_symbols(&filter)?;
        }
        if rows.is_empty() && first_lines {
            rows = self.declared_in_headers(name, path.as_deref())?;
            rows.retain(|r| filter.kind.is_none_or(|k| k == r.kind));
        }
        let asked = filter.name;
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(rows.len());
        for SymbolMatch {
            path,
            start,
            end,
            kind,
            name,
            qualified,
            rank,
        } in rows
        {
            let snippet = reader.evidence(&path, start, end, Budget::DEFINITION);
            let mut ev = Evidence::new(
                path,
                start,
                end,
                Kind::parse(&kind).unwrap_or(Kind::Function),
                name,
                snippet,
            );
            ev.qualified_name = Some(qualified);
            ev.reason = Some(match rank {
                0 => "exact match".to_string(),
                1 => "case-insensitive match".to_string(),
                2 => "qualified-name suffix match".to_string(),
                3 => format!("exported by its module as {asked:?}"),
                _ => format!("its first line declares {asked:?}"),
            });
            out.push(ev);
        }
        Ok(out)
    }

    /// The definitions a public path names through what its modules export
    /// (`httpx.Client` for `httpx._client.Client`), when nothing matched the
    /// name itself ([`crate::modules::through_exports`]).
    fn exported_symbols(&self, filter: &SymbolFilter) -> Result<Vec<SymbolMatch>> {
        let mut out = Vec::new();
        for d in crate::modules::through_exports(&self.conn, filter.name)? {
            let exact = SymbolFilter {
                name: &d.qualified,
                exact: true,
                ..*filter
            };
            let rows = reads::symbol_matches(&self.conn, &exact)?;
            out.extend(
                rows.into_iter()
                    .filter(|r| r.qualified == d.qualified)
                    .map(|r| SymbolMatch { rank: 3, ..r }),
            );
        }
        Ok(out)
    }

    /// The doc comment of the definition an Evidence record shows (which
    /// may lie above its lines, as a JSDoc or `///` comment does).
    pub fn doc_comment(&self, ev: &Evidence) -> Result<Option<String>> {
        let Some(qualified) = ev.qualified_name.as_deref() else {
            return Ok(None);
        };
        reads::doc_comment(&self.conn, &ev.path, qualified, ev.start_line)
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
    pub(crate) fn enclosing_name(&self, rel: &str, start: u32, end: u32) -> Result<Option<String>> {
        reads::enclosing_definition(&self.conn, rel, start, end)
    }

    /// Every import site of a module, given as a module path (`pkg.mod`,
    /// `crate::store`, `./util`) or as a repository path (`pkg/mod.py`).
    pub fn importers(&self, module: &str) -> Result<Vec<Evidence>> {
        let module = limits::name("module", module)?;
        let as_path = self.repo_rel(module)?;
        let rows = reads::import_bindings(&self.conn, module, &as_path)?;
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
        for ImportBinding {
            path,
            start,
            end,
            module,
            name,
            alias,
            target,
        } in rows
        {
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
            let snippet = reader.evidence(&path, start, end, Budget::DEFINITION);
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

    /// Every indexed file (code and documents): its path and language name.
    pub fn files(&self) -> Result<Vec<(String, String)>> {
        crate::store::files::paths_and_languages(self.connection())
    }

    /// The definitions of one file, in source order, each with its nesting depth.
    pub fn outline(&self, path: &str) -> Result<Vec<Evidence>> {
        let rel = self.repo_rel(path)?;
        let Some(file_id) = reads::file_id(&self.conn, &rel) else {
            if self.root.join(&rel).exists() {
                return Err(Error::NotIndexed(rel));
            }
            return Err(Error::NoSuchPath(PathBuf::from(rel)));
        };
        let rows = reads::outline(&self.conn, file_id)?;
        let mut depth_of: HashMap<i64, u32> = HashMap::new();
        let mut reader = self.reader();
        let mut out = Vec::with_capacity(rows.len());
        for OutlineRow {
            id,
            parent,
            start,
            end,
            kind,
            name,
            qualified,
            signature,
        } in rows
        {
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
        self.staleness_with(None)
    }

    /// [`Index::staleness`], walking only what `memory` says changed since
    /// its last walk, and remembering this walk for the next run or check.
    pub fn staleness_with(&self, memory: Option<&Mutex<WalkMemory>>) -> Result<Staleness> {
        let walked = memory::walk_with(&self.root, &self.config, memory);
        // The memory knows the walk the index holds: no stored stats to read.
        if let Some(changes) = walked.since_indexed {
            let stale = Staleness {
                modified: changes.modified,
                added: changes.added,
                deleted: changes.deleted,
            };
            memory::remember(memory, &self.config, &walked.walk, !stale.is_stale());
            return Ok(stale);
        }
        let walked = walked.walk;
        let mut stored = reads::file_stats(&self.conn)?;
        let skipped = reads::skipped_paths(&self.conn)?;
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
        memory::remember(memory, &self.config, &walked, !s.is_stale());
        Ok(s)
    }

    pub fn status(&self) -> Result<Status> {
        let counts = reads::counts(&self.conn)?;
        let skipped = store::files::skipped(&self.conn)?
            .into_iter()
            .map(|s| (s.rel, s.reason))
            .collect();
        Ok(Status {
            root: self.root.clone(),
            index_path: store::index_path(&self.root),
            schema_version: store::SCHEMA_VERSION,
            indexed_at: store::meta(&self.conn, "indexed_at")?.and_then(|v| v.parse().ok()),
            complete: store::meta(&self.conn, "run_state")?.as_deref() == Some("complete"),
            files_by_language: reads::files_by_language(&self.conn)?,
            definitions: counts.definitions,
            imports: counts.imports,
            resolved_imports: counts.resolved_imports,
            calls: counts.calls,
            resolved_calls: counts.resolved_calls,
            external_calls: counts.external_calls,
            builtin_calls: counts.builtin_calls,
            syntax_errors: counts.syntax_errors,
            skipped,
            staleness: self.staleness()?,
            scip: store::scip::status(&self.conn)?,
            history: self.history_status()?,
        })
    }

    fn history_status(&self) -> Result<Option<HistoryStatus>> {
        let Some(head) = store::history::stored_head(&self.conn)? else {
            return Ok(None);
        };
        let commits = store::history::commit_count(&self.conn)?;
        Ok(Some(HistoryStatus { head, commits }))
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
