//! The tools a model may propose: read-only queries over the index, each with
//! the JSON Schema its arguments must match. **This list is the whole of what
//! a model can make evident do**: there is no tool that writes, runs a
//! command or reaches the network, and none can be added from outside the
//! crate at run time (the registry is built here, from this list).

use std::path::PathBuf;

use evident_index::{
    DiffRequest, Evidence, Index, Kind, QueryVector, SearchMode, SearchQuery, SourcePart,
    SymbolQuery,
};
use serde_json::{json, Map, Value};

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

/// Embeds a search query for hybrid search (`None` when it cannot).
pub type QueryEmbedder = Box<dyn Fn(&str) -> Option<QueryVector> + Send + Sync>;

/// What a tool needs to run: the repository, and how to embed a search query.
pub struct ToolContext {
    pub root: PathBuf,
    /// Embeds a query for hybrid search; `None`: BM25 only.
    pub embed_query: Option<QueryEmbedder>,
    pub skills: Vec<Skill>,
}

/// A tool's result: evidence, and a line saying what it means.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    pub summary: String,
    pub evidence: Vec<Evidence>,
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
    ) -> Result<ToolOutput, String>;
}

type Handler = fn(&ToolContext, &Map<String, Value>) -> Result<ToolOutput, String>;

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
    ) -> Result<ToolOutput, String> {
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
                        "query": {"type": "string", "minLength": 1, "maxLength": 200},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 20},
                        "kind": {"type": "string", "maxLength": 20},
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

fn open(context: &ToolContext) -> Result<Index, String> {
    Index::open(&context.root).map_err(|e| e.to_string())
}

fn text<'a>(arguments: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    arguments.get(key).and_then(Value::as_str)
}

fn number(arguments: &Map<String, Value>, key: &str) -> Option<u64> {
    arguments.get(key).and_then(Value::as_u64)
}

/// The `kind` argument; not an enum in the schema, to keep the prompt short.
fn kind(arguments: &Map<String, Value>) -> Result<Option<Kind>, String> {
    match text(arguments, "kind") {
        None => Ok(None),
        Some(name) => Kind::parse(name).map(Some).ok_or_else(|| {
            let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
            format!(
                "field \"kind\": {name:?} is not a kind; use one of {}",
                kinds.join(", ")
            )
        }),
    }
}

fn found(what: &str, evidence: Vec<Evidence>) -> ToolOutput {
    let summary = match evidence.len() {
        0 => format!("no {what}"),
        1 => format!("1 {}", what.trim_end_matches('s')),
        n => format!("{n} {what}"),
    };
    ToolOutput { summary, evidence }
}

fn search_code(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let query = text(arguments, "query").unwrap_or_default();
    let mut request = SearchQuery {
        limit: number(arguments, "limit").unwrap_or(8) as usize,
        kind: kind(arguments)?,
        ..SearchQuery::new(query)
    };
    if let Some(vector) = context.embed_query.as_ref().and_then(|embed| embed(query)) {
        request.mode = SearchMode::Hybrid;
        request.vector = Some(vector);
    }
    let results = index.search(&request).map_err(|e| e.to_string())?;
    Ok(found("results", results))
}

fn find_symbol(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let query = SymbolQuery {
        kind: kind(arguments)?,
        path: text(arguments, "path").map(str::to_string),
        limit: Some(20),
        ..Default::default()
    };
    let name = text(arguments, "name").unwrap_or_default();
    let results = index.symbols(name, &query).map_err(|e| e.to_string())?;
    if let (true, Some(path)) = (results.is_empty(), &query.path) {
        // Small models guess paths; where the name really is beats "nothing".
        let anywhere = SymbolQuery {
            path: None,
            ..query.clone()
        };
        let elsewhere = index.symbols(name, &anywhere).map_err(|e| e.to_string())?;
        if !elsewhere.is_empty() {
            let mut output = found("definitions", elsewhere);
            output.summary = format!("no definitions under {path}; {} elsewhere", output.summary);
            return Ok(output);
        }
    }
    Ok(found("definitions", results))
}

fn read_evidence(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let (start, end) = (
        number(arguments, "start_line").unwrap_or(1),
        number(arguments, "end_line").unwrap_or(1),
    );
    let path = text(arguments, "path").unwrap_or_default();
    let evidence = index
        .read(path, start as i64, end as i64)
        .map_err(|e| e.to_string())?;
    Ok(ToolOutput {
        summary: format!(
            "{}:{}-{}",
            evidence.path, evidence.start_line, evidence.end_line
        ),
        evidence: vec![evidence],
    })
}

fn find_importers(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let module = text(arguments, "module").unwrap_or_default();
    Ok(found(
        "import sites",
        index.importers(module).map_err(|e| e.to_string())?,
    ))
}

fn get_callers(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let symbol = text(arguments, "symbol").unwrap_or_default();
    let depth = number(arguments, "depth").unwrap_or(1) as u32;
    let callers = index
        .callers(symbol, text(arguments, "path"), depth)
        .map_err(|e| e.to_string())?;
    Ok(found("call sites", callers))
}

fn analyze_impact(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let symbol = text(arguments, "symbol").unwrap_or_default();
    let depth = number(arguments, "max_depth").unwrap_or(3) as u32;
    let impact = index
        .impact(symbol, text(arguments, "path"), depth, 50)
        .map_err(|e| e.to_string())?;
    let mut out = found("affected definitions", impact.nodes);
    out.summary = format!(
        "{} in {} files{}",
        out.summary,
        impact.files,
        if impact.omitted > 0 {
            format!(" ({} more not shown)", impact.omitted)
        } else {
            String::new()
        }
    );
    Ok(out)
}

fn read_git_diff(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
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
    let report = index.diff(&request).map_err(|e| e.to_string())?;
    let mut evidence = report.hunks.clone();
    evidence.extend(report.touched.iter().map(|t| t.evidence.clone()));
    Ok(ToolOutput {
        summary: format!("{} ({}): {}", report.compared, report.files, report.risk()),
        evidence,
    })
}

fn list_sources(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let filter = text(arguments, "name_contains").unwrap_or_default();
    Ok(found(
        "documents",
        index.sources(filter).map_err(|e| e.to_string())?,
    ))
}

fn read_source(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let index = open(context)?;
    let part = match (
        text(arguments, "section"),
        number(arguments, "start_line"),
        number(arguments, "end_line"),
    ) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err("give either section or start_line/end_line, not both".into())
        }
        (Some(section), None, None) => SourcePart::Section(section.to_string()),
        (None, Some(a), Some(b)) => SourcePart::Lines(a as u32, b as u32),
        (None, Some(_), None) | (None, None, Some(_)) => {
            return Err("a line range needs both start_line and end_line".into())
        }
        (None, None, None) => SourcePart::Start,
    };
    let doc_id = text(arguments, "doc_id").unwrap_or_default();
    let evidence = index.source(doc_id, &part).map_err(|e| e.to_string())?;
    Ok(ToolOutput {
        summary: format!(
            "{}:{}-{}",
            evidence.path, evidence.start_line, evidence.end_line
        ),
        evidence: vec![evidence],
    })
}

fn activate_skill(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, String> {
    let name = text(arguments, "name").unwrap_or_default();
    let Some(skill) = context.skills.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = context.skills.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "no skill is named {name:?}; the skills are: {}",
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    Ok(ToolOutput {
        summary: format!("skill {} loaded", skill.name),
        evidence: vec![skill.evidence()],
    })
}
