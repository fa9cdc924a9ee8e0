//! The list of built-in tools: each one's name, description, JSON Schema,
//! path arguments and handler.

use serde_json::{json, Map, Value};

use super::code::{
    analyze_impact, find_importers, find_references, find_symbol, get_callees, get_callers,
    read_evidence, search_code,
};
use super::contract::{Tool, ToolContext, ToolError, ToolOutput};
use super::sources::{activate_skill, list_sources, read_git_diff, read_source};

type Handler = fn(&ToolContext, &Map<String, Value>) -> Result<ToolOutput, ToolError>;

/// A built-in tool: its description, schema and handler as data.
#[derive(Clone, Copy)]
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
const BUILTINS: &[Builtin] = &[
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
                    "name": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_NAME_CHARS},
                    "kind": {"type": "string", "maxLength": 20},
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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
                    "module": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_NAME_CHARS},
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
                    "symbol": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_NAME_CHARS},
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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
                    "symbol": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_NAME_CHARS},
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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
                    "symbol": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_NAME_CHARS},
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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
                    "symbol": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_NAME_CHARS},
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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
                    "path": {"type": "string", "minLength": 1, "maxLength": evident_index::limits::MAX_PATH_CHARS},
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

/// Every built-in tool, in the order the model sees them.
pub fn builtin_tools() -> Vec<Box<dyn Tool>> {
    BUILTINS
        .iter()
        .map(|t| Box::new(*t) as Box<dyn Tool>)
        .collect()
}
