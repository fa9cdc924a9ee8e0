//! The tools a model may propose: read-only queries over the index, each with
//! the JSON Schema its arguments must match. **This list is the whole of what
//! a model can make evident do**: there is no tool that writes, runs a
//! command or reaches the network, and none can be added from outside the
//! crate at run time (the registry is built here, from this list).

use std::path::PathBuf;

use evident_index::{
    DiffRequest, Evidence, Index, Kind, Page, SearchGroup, SearchMode, SourcePart, SymbolQuery,
};
use serde_json::{json, Map, Value};

use crate::search::{SearchError, SearchRequest, SearchService};
use crate::skills::Skill;

/// When a call needs a person's yes before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    /// Runs without asking (every built-in tool reads only).
    Auto,
    /// Asks first (per policy: `[agent] approve = [...]`, `--approve TOOL`).
    Ask,
}

/// What a tool needs to run: the repository, the search service (the same
/// one the CLI uses), and the skills.
pub struct ToolContext {
    pub root: PathBuf,
    pub search: SearchService,
    pub skills: Vec<Skill>,
}

impl ToolContext {
    /// Full-text search only, no skills: what tests and plain uses need.
    pub fn plain(root: impl Into<PathBuf>) -> ToolContext {
        ToolContext {
            root: root.into(),
            search: SearchService::without_embedder("no embedding model is configured"),
            skills: Vec::new(),
        }
    }
}

/// Why a tool gave no result. Typed, so each door (the session, MCP) decides
/// how to say it; the message is what the caller is told.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments make no sense together, or name nothing there is.
    #[error("{0}")]
    Arguments(String),
    /// The index refused or failed (an unknown symbol, a path it will not read, …).
    #[error(transparent)]
    Index(#[from] evident_index::Error),
    /// The tool panicked (a bug; the session and the server carry on).
    #[error("the tool failed unexpectedly{0}")]
    Panicked(String),
}

impl From<SearchError> for ToolError {
    fn from(error: SearchError) -> ToolError {
        match error {
            SearchError::Index(e) => ToolError::Index(e),
            other => ToolError::Arguments(other.to_string()),
        }
    }
}

/// A tool's result: evidence, and a line saying what it means.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    pub summary: String,
    pub evidence: Vec<Evidence>,
    /// The evidence is what was asked to be read (lines, a section, a skill):
    /// the model gets it whole, not shortened.
    pub whole: bool,
}

/// One tool a model can call.
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// JSON Schema (draft 2020-12) of the arguments object.
    fn schema(&self) -> Value;
    /// Arguments that name repository paths, checked by the sandbox before the tool runs.
    fn path_arguments(&self) -> &'static [&'static str] {
        &[]
    }
    fn default_approval(&self) -> Approval {
        Approval::Auto
    }
    /// Whether only evident's own agent offers the tool (skills are its
    /// prompts), not other agents over MCP.
    fn agent_only(&self) -> bool {
        false
    }
    /// Runs the validated call. Errors are messages for the model.
    fn run(
        &self,
        context: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Result<ToolOutput, ToolError>;
}

type Handler = fn(&ToolContext, &Map<String, Value>) -> Result<ToolOutput, ToolError>;

/// A built-in tool: its description, schema and handler as data.
struct Builtin {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Value,
    paths: &'static [&'static str],
    agent_only: bool,
    handler: Handler,
}

impl Tool for Builtin {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn schema(&self) -> Value {
        (self.schema)()
    }
    fn path_arguments(&self) -> &'static [&'static str] {
        self.paths
    }
    fn agent_only(&self) -> bool {
        self.agent_only
    }
    fn run(
        &self,
        context: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Result<ToolOutput, ToolError> {
        (self.handler)(context, arguments)
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// Every built-in tool, in the order the model sees them.
pub fn builtin_tools() -> Vec<Box<dyn Tool>> {
    let tools = [
        Builtin {
            name: "search_code",
            description: "Search code and documents by words or meaning.",
            schema: || {
                object(
                    json!({
                        "query": {"type": "string", "minLength": 1, "maxLength": evident_index::MAX_QUERY_CHARS},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 20},
                        "kind": {"type": "string", "maxLength": 20},
                        "group": {"type": "string", "enum": ["chunk", "file", "definition"]},
                    }),
                    &["query"],
                )
            },
            paths: &[],
            agent_only: false,
            handler: search_code,
        },
        Builtin {
            name: "find_symbol",
            description: "Find where a function, class or variable is defined.",
            schema: || {
                object(
                    json!({
                        "name": {"type": "string", "minLength": 1, "maxLength": 120},
                        "kind": {"type": "string", "maxLength": 20},
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                    }),
                    &["name"],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: find_symbol,
        },
        Builtin {
            name: "read_evidence",
            description: "Read lines of a file (at most 400).",
            schema: || {
                object(
                    json!({
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                        "start_line": {"type": "integer", "minimum": 1},
                        "end_line": {"type": "integer", "minimum": 1},
                    }),
                    &["path", "start_line", "end_line"],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: read_evidence,
        },
        Builtin {
            name: "find_importers",
            description: "Find the files that import a module.",
            schema: || {
                object(
                    json!({
                        "module": {"type": "string", "minLength": 1, "maxLength": 200},
                    }),
                    &["module"],
                )
            },
            paths: &[],
            agent_only: false,
            handler: find_importers,
        },
        Builtin {
            name: "get_callers",
            description: "Find the callers of a function.",
            schema: || {
                object(
                    json!({
                        "symbol": {"type": "string", "minLength": 1, "maxLength": 200},
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                        "depth": {"type": "integer", "minimum": 1, "maximum": 5},
                    }),
                    &["symbol"],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: get_callers,
        },
        Builtin {
            name: "get_callees",
            description: "Find the calls a function makes, and what each resolves to.",
            schema: || {
                object(
                    json!({
                        "symbol": {"type": "string", "minLength": 1, "maxLength": 200},
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                    }),
                    &["symbol"],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: get_callees,
        },
        Builtin {
            name: "find_references",
            description: "Find the code that names a definition: calls, types, reads.",
            schema: || {
                object(
                    json!({
                        "symbol": {"type": "string", "minLength": 1, "maxLength": 200},
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                    }),
                    &["symbol"],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: find_references,
        },
        Builtin {
            name: "analyze_impact",
            description:
                "What breaks if a function changes: everything that calls it, directly or not.",
            schema: || {
                object(
                    json!({
                        "symbol": {"type": "string", "minLength": 1, "maxLength": 200},
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                        "max_depth": {"type": "integer", "minimum": 1, "maximum": 6},
                    }),
                    &["symbol"],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: analyze_impact,
        },
        Builtin {
            name: "read_git_diff",
            description: "The uncommitted changes (or base..HEAD) and the definitions they touch.",
            schema: || {
                object(
                    json!({
                        "base": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[A-Za-z0-9_./~^@{}-]+$"},
                        "path": {"type": "string", "minLength": 1, "maxLength": 400},
                    }),
                    &[],
                )
            },
            paths: &["path"],
            agent_only: false,
            handler: read_git_diff,
        },
        Builtin {
            name: "list_sources",
            description: "List the documentation files (IDs and titles).",
            schema: || {
                object(
                    json!({
                        "name_contains": {"type": "string", "maxLength": 80},
                    }),
                    &[],
                )
            },
            paths: &[],
            agent_only: false,
            handler: list_sources,
        },
        Builtin {
            name: "read_source",
            description: "Read a document by ID: from the top, a section, or lines.",
            schema: || {
                object(
                    json!({
                        "doc_id": {"type": "string", "pattern": "^doc-[0-9a-f]{12}$"},
                        "section": {"type": "string", "minLength": 1, "maxLength": 200},
                        "start_line": {"type": "integer", "minimum": 1},
                        "end_line": {"type": "integer", "minimum": 1},
                    }),
                    &["doc_id"],
                )
            },
            paths: &[],
            agent_only: false,
            handler: read_source,
        },
        Builtin {
            name: "activate_skill",
            description: "Load a skill's instructions by name.",
            schema: || {
                object(
                    json!({
                        "name": {"type": "string", "minLength": 1, "maxLength": 64},
                    }),
                    &["name"],
                )
            },
            paths: &[],
            agent_only: true,
            handler: activate_skill,
        },
    ];
    tools
        .into_iter()
        .map(|t| Box::new(t) as Box<dyn Tool>)
        .collect()
}

fn open(context: &ToolContext) -> Result<Index, ToolError> {
    Ok(Index::open(&context.root)?)
}

fn text<'a>(arguments: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    arguments.get(key).and_then(Value::as_str)
}

fn number(arguments: &Map<String, Value>, key: &str) -> Option<u64> {
    arguments.get(key).and_then(Value::as_u64)
}

/// The `kind` argument; not an enum in the schema, to keep the prompt short.
/// A word that is no kind is refused (the escape corpus holds such calls); a
/// kind that matches nothing is dropped by the tool, with a note.
fn kind(arguments: &Map<String, Value>) -> Result<Option<Kind>, ToolError> {
    match text(arguments, "kind") {
        None => Ok(None),
        Some(name) => Kind::parse(name).map(Some).ok_or_else(|| {
            ToolError::Arguments({
                let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "field \"kind\": {name:?} is not a kind; use one of {}",
                    kinds.join(", ")
                )
            })
        }),
    }
}

/// A result's summary, led by the notes on arguments that were forgiven.
fn with_notes(mut output: ToolOutput, notes: Vec<String>) -> ToolOutput {
    if !notes.is_empty() {
        output.summary = format!("note: {}. {}", notes.join("; "), output.summary);
    }
    output
}

/// A symbol argument and its path filter after forgiving what a small model
/// gets wrong when the intent is clear: a path that holds no definition of
/// the name is dropped, and a qualified name that does not exist stands for
/// its last segment when exactly one definition has that name. Each change is
/// said in `notes`.
fn forgiving_target(
    index: &Index,
    symbol: &str,
    path: Option<&str>,
    notes: &mut Vec<String>,
) -> (String, Option<String>) {
    let found = |symbol: &str, path: Option<&str>| {
        !matches!(
            index.graph_targets(symbol, path),
            Err(evident_index::Error::NotFound(_))
        )
    };
    let mut symbol = symbol.trim().to_string();
    let mut path = path.map(str::to_string);
    if let Some(p) = path.as_deref() {
        if !found(&symbol, Some(p)) && found(&symbol, None) {
            notes.push(format!(
                "{p} holds no definition of {symbol}, so the path filter was dropped"
            ));
            path = None;
        }
    }
    if !found(&symbol, path.as_deref()) {
        let bare = last_segment(&symbol);
        if bare != symbol {
            if let Ok(targets) = index.graph_targets(bare, None) {
                if let [target, ..] = targets.as_slice() {
                    notes.push(format!(
                        "no definition is named {symbol}; using {} ({}:{}), the one definition named {bare}{}",
                        target.qualified_name,
                        target.path,
                        target.start_line,
                        if path.is_some() { ", without the path filter" } else { "" }
                    ));
                    symbol = bare.to_string();
                    path = None;
                }
            }
        }
    }
    (symbol, path)
}

/// `Engine.compute` → `compute`, `store::Db::new` → `new`.
fn last_segment(name: &str) -> &str {
    let name = name.trim().trim_end_matches("()");
    let after_dot = name.rsplit('.').next().unwrap_or(name);
    after_dot.rsplit("::").next().unwrap_or(after_dot)
}

/// The most items a summary line lists by name.
const SUMMARY_ITEMS: usize = 8;

/// The call sites one `get_callers` answer lists; all are counted. More
/// would not fit a small model's context anyway.
const CALLERS_PAGE: usize = 200;

/// A result whose first line states the answer when the data holds it:
/// `2 import sites of rag_common: ingest.py:1, query.py:1`. Small models
/// read that line; the records below back it.
fn found(
    what: &str,
    subject: &str,
    evidence: Vec<Evidence>,
    item: fn(&Evidence) -> String,
) -> ToolOutput {
    let total = evidence.len();
    found_of(what, subject, evidence, total, item)
}

/// [`found`] for the first page of `total` items.
fn found_of(
    what: &str,
    subject: &str,
    evidence: Vec<Evidence>,
    total: usize,
    item: fn(&Evidence) -> String,
) -> ToolOutput {
    let of = if subject.is_empty() {
        String::new()
    } else {
        format!(" of {subject}")
    };
    let mut counted = match total {
        0 => format!("no {what}{of}"),
        1 => format!("1 {}{of}", what.trim_end_matches('s')),
        n => format!("{n} {what}{of}"),
    };
    if evidence.len() < total {
        counted.push_str(&format!(" (the first {} listed)", evidence.len()));
    }
    let mut items: Vec<String> = Vec::new();
    for ev in &evidence {
        let text = item(ev);
        if !items.contains(&text) {
            items.push(text);
        }
    }
    // Those past the summary's, and those past the page.
    let more = items.len().saturating_sub(SUMMARY_ITEMS) + (total - evidence.len().min(total));
    items.truncate(SUMMARY_ITEMS);
    let summary = if items.is_empty() {
        counted
    } else if more > 0 {
        format!("{counted}: {} and {more} more", items.join(", "))
    } else {
        format!("{counted}: {}", items.join(", "))
    };
    ToolOutput {
        summary,
        evidence,
        whole: false,
    }
}

/// `Session.send at src/sessions.py:676`
fn named_at(ev: &Evidence) -> String {
    let name = ev
        .qualified_name
        .as_deref()
        .map_or(ev.name.as_str(), short_qualified);
    format!("{name} at {}:{}", ev.path, ev.start_line)
}

/// `ingest.py:1`
fn place(ev: &Evidence) -> String {
    format!("{}:{}", ev.path, ev.start_line)
}

/// `Session.send` from `requests.sessions.Session.send`: the class (or
/// module) and the name, enough to tell same-named definitions apart.
pub fn short_qualified(qualified: &str) -> &str {
    let separators: Vec<usize> = qualified
        .match_indices(['.', ':'])
        .map(|(i, _)| i)
        .collect();
    // The start of the second-to-last segment.
    let mut segments = 0;
    let mut previous_end = qualified.len();
    for &i in separators.iter().rev() {
        if i + 1 == previous_end {
            // `::` counts once.
            previous_end = i;
            continue;
        }
        segments += 1;
        if segments == 2 {
            return &qualified[i + 1..];
        }
        previous_end = i;
    }
    qualified
}

fn search_code(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let query = text(arguments, "query").unwrap_or_default();
    // Hybrid when an embedder is configured; the service says when it fell back.
    let mode = if context.search.has_embedder() {
        SearchMode::Hybrid
    } else {
        SearchMode::Bm25
    };
    let mut request = SearchRequest {
        limit: number(arguments, "limit").unwrap_or(8) as usize,
        kind: kind(arguments)?,
        explain: true,
        group: text(arguments, "group")
            .and_then(SearchGroup::parse)
            .unwrap_or_default(),
        ..SearchRequest::new(query, mode)
    };
    let run = |request: &SearchRequest| {
        context
            .search
            .search(&context.root, &index, request)
            .map_err(ToolError::from)
    };
    let mut answer = run(&request)?;
    // How the search ranked (no vectors, say) is said after the results: a
    // small model reads a leading note as an error. A forgiven argument leads.
    let mut ranking = std::mem::take(&mut answer.notes);
    let mut notes = Vec::new();
    if let (true, Some(kind)) = (answer.results.is_empty(), request.kind) {
        request.kind = None;
        answer = run(&request)?;
        ranking.append(&mut answer.notes);
        if !answer.results.is_empty() {
            notes.push(format!(
                "nothing of kind {kind} matched, so the kind was dropped"
            ));
        }
    }
    let mut out = found("results", "", answer.results, named_at);
    if !ranking.is_empty() {
        out.summary = format!("{} (note: {})", out.summary, ranking.join("; "));
    }
    Ok(with_notes(out, notes))
}

fn find_symbol(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let mut query = SymbolQuery {
        kind: kind(arguments)?,
        path: text(arguments, "path").map(str::to_string),
        limit: Some(20),
        ..Default::default()
    };
    let mut name = text(arguments, "name")
        .unwrap_or_default()
        .trim()
        .to_string();
    let lookup =
        |name: &str, query: &SymbolQuery| index.symbols(name, query).map_err(ToolError::from);
    let mut results = lookup(&name, &query)?;
    // Small models guess paths and kinds; where the name really is beats "nothing".
    if let (true, Some(path)) = (results.is_empty(), query.path.clone()) {
        let anywhere = SymbolQuery {
            path: None,
            ..query.clone()
        };
        let elsewhere = lookup(&name, &anywhere)?;
        if !elsewhere.is_empty() {
            notes.push(format!(
                "no definitions under {path}, so the path filter was dropped"
            ));
            (query, results) = (anywhere, elsewhere);
        }
    }
    if let (true, Some(kind)) = (results.is_empty(), query.kind) {
        let any_kind = SymbolQuery {
            kind: None,
            ..query.clone()
        };
        let other = lookup(&name, &any_kind)?;
        if !other.is_empty() {
            notes.push(format!(
                "no {kind} is named {name}, so the kind was dropped"
            ));
            (query, results) = (any_kind, other);
        }
    }
    let bare = last_segment(&name).to_string();
    if results.is_empty() && bare != name {
        let plain = SymbolQuery {
            exact: true,
            path: None,
            kind: None,
            ..query.clone()
        };
        let named = lookup(&bare, &plain)?;
        if named.len() == 1 {
            notes.push(format!(
                "no definition is named {name}; {} is the one definition named {bare}",
                named_at(&named[0])
            ));
            (name, results) = (bare, named);
        }
    }
    Ok(with_notes(
        found("definitions", &name, results, named_at),
        notes,
    ))
}

fn read_evidence(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let (start, end) = (
        number(arguments, "start_line").unwrap_or(1),
        number(arguments, "end_line").unwrap_or(1),
    );
    let path = text(arguments, "path").unwrap_or_default();
    let evidence = index
        .read(path, start as i64, end as i64)
        .map_err(ToolError::from)?;
    Ok(ToolOutput {
        summary: evidence.location(),
        evidence: vec![evidence],
        whole: true,
    })
}

fn find_importers(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let module = text(arguments, "module").unwrap_or_default();
    Ok(found(
        "import sites",
        module.trim(),
        index.importers(module).map_err(ToolError::from)?,
        place,
    ))
}

/// `ingest at ingest.py:5`: the calling definition and the call's line.
fn caller_at(ev: &Evidence) -> String {
    format!(
        "{} at {}:{}",
        short_qualified(&ev.name),
        ev.path,
        ev.start_line
    )
}

fn get_callers(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let depth = number(arguments, "depth").unwrap_or(1) as u32;
    let callers = index.callers_page(&symbol, path.as_deref(), depth, Page::first(CALLERS_PAGE))?;
    let listed = found_of(
        "call sites",
        &symbol,
        callers.sites,
        callers.total,
        caller_at,
    );
    let out = with_possible(listed, callers.possible);
    Ok(with_notes(out, notes))
}

/// Adds the unresolved call sites that may reach the target, as a group of
/// their own: counted apart in the summary ("no call sites …; 2 possible call
/// sites whose receiver type is unknown: …") and appended to the evidence.
fn with_possible(mut output: ToolOutput, possible: evident_index::Possible) -> ToolOutput {
    if possible.total == 0 {
        return output;
    }
    let mut items: Vec<String> = Vec::new();
    for site in &possible.sites {
        let item = caller_at(site);
        if !items.contains(&item) && items.len() < SUMMARY_ITEMS {
            items.push(item);
        }
    }
    let more = possible.total.saturating_sub(items.len());
    let site = if possible.total == 1 { "site" } else { "sites" };
    output.summary = format!(
        "{}; {} possible call {site} whose receiver type is unknown: {}{}",
        output.summary,
        possible.total,
        items.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
    output.evidence.extend(possible.sites);
    output
}

fn get_callees(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let calls = index.callees(&symbol, path.as_deref())?;
    // The resolved calls first: they are the answer; the rest are the language's own or unknown.
    let (mut resolved, unresolved): (Vec<Evidence>, Vec<Evidence>) =
        calls.into_iter().partition(|ev| {
            ev.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("calls "))
        });
    let mut out = found(
        "calls to this repository's definitions",
        &symbol,
        resolved.clone(),
        callee_at,
    );
    if !unresolved.is_empty() {
        let names: Vec<String> =
            unresolved
                .iter()
                .map(|ev| ev.name.clone())
                .fold(Vec::new(), |mut v, n| {
                    if !v.contains(&n) && v.len() < SUMMARY_ITEMS {
                        v.push(n);
                    }
                    v
                });
        out.summary.push_str(&format!(
            "; {} other calls (outside the repository or unresolved): {}",
            unresolved.len(),
            names.join(", ")
        ));
    }
    resolved.extend(unresolved);
    out.evidence = resolved;
    Ok(with_notes(out, notes))
}

/// `escape at pkg/text.py:12`, the callee as it resolved.
fn callee_at(ev: &Evidence) -> String {
    let target = ev
        .reason
        .as_deref()
        .and_then(|r| r.strip_prefix("calls "))
        .map_or(ev.name.as_str(), short_qualified);
    format!("{target} (called at {}:{})", ev.path, ev.start_line)
}

fn find_references(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let sites = index.references(&symbol, path.as_deref())?;
    Ok(with_notes(
        found("references", &symbol, sites, caller_at),
        notes,
    ))
}

fn analyze_impact(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let depth = number(arguments, "max_depth").unwrap_or(3) as u32;
    let impact = index
        .impact(&symbol, path.as_deref(), depth, 50)
        .map_err(ToolError::from)?;
    let mut out = found("affected definitions", &symbol, impact.nodes, caller_at);
    let (head, items) = out
        .summary
        .split_once(": ")
        .map_or((out.summary.as_str(), ""), |(h, i)| (h, i));
    out.summary = format!(
        "{head} in {} files{}{}{items}",
        impact.files,
        if impact.omitted > 0 {
            format!(" ({} more not shown)", impact.omitted)
        } else {
            String::new()
        },
        if items.is_empty() { "" } else { ": " },
    );
    Ok(with_notes(with_possible(out, impact.possible), notes))
}

fn read_git_diff(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let request = DiffRequest {
        base: text(arguments, "base").map(str::to_string),
        staged: false,
        paths: text(arguments, "path")
            .map(str::to_string)
            .into_iter()
            .collect(),
        impact_depth: 2,
    };
    let report = index.diff(&request).map_err(ToolError::from)?;
    let mut evidence = report.hunks.clone();
    evidence.extend(report.touched.iter().map(|t| t.evidence.clone()));
    // The definitions touched, by name: what "what did the change touch" asks.
    let mut touched: Vec<String> = report
        .touched
        .iter()
        .take(SUMMARY_ITEMS)
        .map(|t| {
            let change = format!("{:?}", t.change).to_lowercase();
            format!("{} ({change})", named_at(&t.evidence))
        })
        .collect();
    if report.touched.len() > SUMMARY_ITEMS {
        touched.push(format!("and {} more", report.touched.len() - SUMMARY_ITEMS));
    }
    let touched = if touched.is_empty() {
        String::new()
    } else {
        format!("; touched: {}", touched.join(", "))
    };
    Ok(ToolOutput {
        summary: format!(
            "{} ({}): {}{touched}",
            report.compared,
            report.files,
            report.risk()
        ),
        evidence,
        whole: false,
    })
}

fn list_sources(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let filter = text(arguments, "name_contains").unwrap_or_default();
    Ok(found(
        "documents",
        "",
        index.sources(filter).map_err(ToolError::from)?,
        |ev| format!("{} ({})", ev.path, ev.doc_id.as_deref().unwrap_or("?")),
    ))
}

fn read_source(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let part = match (
        text(arguments, "section"),
        number(arguments, "start_line"),
        number(arguments, "end_line"),
    ) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(ToolError::Arguments(
                "give either section or start_line/end_line, not both".into(),
            ))
        }
        (Some(section), None, None) => SourcePart::Section(section.to_string()),
        (None, Some(a), Some(b)) => SourcePart::Lines(a as u32, b as u32),
        (None, Some(_), None) | (None, None, Some(_)) => {
            return Err(ToolError::Arguments(
                "a line range needs both start_line and end_line".into(),
            ))
        }
        (None, None, None) => SourcePart::Start,
    };
    let doc_id = text(arguments, "doc_id").unwrap_or_default();
    let evidence = index.source(doc_id, &part).map_err(ToolError::from)?;
    Ok(ToolOutput {
        summary: evidence.location(),
        evidence: vec![evidence],
        whole: true,
    })
}

fn activate_skill(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let name = text(arguments, "name").unwrap_or_default();
    let Some(skill) = context.skills.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = context.skills.iter().map(|s| s.name.as_str()).collect();
        return Err(ToolError::Arguments(format!(
            "no skill is named {name:?}; the skills are: {}",
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        )));
    };
    Ok(ToolOutput {
        summary: format!("skill {} loaded", skill.name),
        evidence: vec![skill.evidence()],
        whole: true,
    })
}
