//! The registry: the read-only tools, each with its compiled JSON Schema, and
//! the strict validation every proposed call passes **before** any handler
//! runs: a known tool name, one JSON object with no duplicate keys, the
//! tool's schema (unknown keys, types, ranges, lengths: `jsonschema`), and
//! paths that stay inside the repository and are not secret.

use std::collections::BTreeMap;
use std::path::Path;

use evident_index::config::Config;
use evident_llm::{ToolCall, ToolSchema};
use serde_json::{Map, Value};

use crate::strict_json;
use crate::tools::{builtin_tools, Approval, Tool};

struct Entry {
    tool: Box<dyn Tool>,
    validator: jsonschema::Validator,
    approval: Approval,
}

/// The tools a session may use.
pub struct Registry {
    entries: Vec<Entry>,
}

/// A call that passed validation: its tool and its arguments.
pub struct Validated<'r> {
    pub tool: &'r dyn Tool,
    pub arguments: Map<String, Value>,
    pub approval: Approval,
}

/// Why a registry could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("approval policy names {name:?}, which is not a tool; the tools are: {known}")]
    UnknownTool { name: String, known: String },
    #[error("{tool}: invalid schema: {message}")]
    Schema { tool: &'static str, message: String },
}

/// Why a proposed call is refused; the message goes back to whoever proposed it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error(
        "unknown tool {name:?}: there is no such tool (evident only reads); the tools are: {known}"
    )]
    UnknownTool { name: String, known: String },
    /// Not one JSON object, a key written twice, a schema problem, a bad line range.
    #[error("{0}")]
    Arguments(String),
    /// A path argument the sandbox refuses.
    #[error("field {field:?}: {why}")]
    Path { field: String, why: String },
}

impl Registry {
    /// Every built-in tool; `ask` names the tools that need approval.
    pub fn read_only(ask: &[String]) -> Result<Registry, RegistryError> {
        let known: Vec<&str> = builtin_tools().iter().map(|t| t.name()).collect();
        if let Some(unknown) = ask.iter().find(|name| !known.contains(&name.as_str())) {
            return Err(RegistryError::UnknownTool {
                name: unknown.clone(),
                known: known.join(", "),
            });
        }
        Registry::build(builtin_tools(), ask)
    }

    /// The tools other agents get over MCP: every built-in one but those only
    /// evident's own agent offers (`activate_skill`). Nothing asks approval:
    /// the client agent has its own.
    pub fn for_clients() -> Result<Registry, RegistryError> {
        let tools = builtin_tools().into_iter().filter(|t| !t.agent_only());
        Registry::build(tools.collect(), &[])
    }

    fn build(tools: Vec<Box<dyn Tool>>, ask: &[String]) -> Result<Registry, RegistryError> {
        let entries = tools
            .into_iter()
            .map(|tool| {
                let validator = jsonschema::validator_for(&tool.schema()).map_err(|e| {
                    RegistryError::Schema {
                        tool: tool.name(),
                        message: e.to_string(),
                    }
                })?;
                let approval = if ask.iter().any(|name| name == tool.name()) {
                    Approval::Ask
                } else {
                    tool.default_approval()
                };
                Ok(Entry {
                    tool,
                    validator,
                    approval,
                })
            })
            .collect::<Result<Vec<_>, RegistryError>>()?;
        Ok(Registry { entries })
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.entries
            .iter()
            .find(|e| e.tool.name() == name)
            .map(|e| e.tool.as_ref())
    }

    /// The tools as the model is told of them.
    pub fn schemas(&self) -> Vec<ToolSchema> {
        self.entries
            .iter()
            .map(|e| ToolSchema {
                name: e.tool.name().to_string(),
                description: e.tool.description().to_string(),
                parameters: e.tool.schema(),
            })
            .collect()
    }

    /// The tools named, in registry order, each with only its required
    /// arguments: what a small model is offered. Optional filters it would
    /// only invent (`path`, `kind`, depths) are left out; a call that gives
    /// them anyway is still validated against the whole schema.
    pub fn compact_schemas(&self, names: &[&str]) -> Vec<ToolSchema> {
        self.schemas()
            .into_iter()
            .filter(|t| names.contains(&t.name.as_str()))
            .map(|mut tool| {
                let required: Vec<String> = tool.parameters["required"]
                    .as_array()
                    .map(|r| {
                        r.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                if let Some(properties) = tool.parameters["properties"].as_object_mut() {
                    properties.retain(|key, _| required.contains(key));
                }
                tool
            })
            .collect()
    }

    /// Approval per tool, for `/tools`.
    pub fn approvals(&self) -> BTreeMap<&'static str, Approval> {
        self.entries
            .iter()
            .map(|e| (e.tool.name(), e.approval))
            .collect()
    }

    /// Checks `call` completely; the error is the message the model gets.
    pub fn validate(
        &self,
        call: &ToolCall,
        root: &Path,
        config: &Config,
    ) -> Result<Validated<'_>, Rejection> {
        let Some(entry) = self.entries.iter().find(|e| e.tool.name() == call.name) else {
            return Err(Rejection::UnknownTool {
                name: call.name.clone(),
                known: self.names().join(", "),
            });
        };
        let arguments = if call.arguments_raw.trim().is_empty() {
            match &call.arguments {
                Value::Object(object) => object.clone(),
                Value::Null => Map::new(),
                _ => {
                    return Err(Rejection::Arguments(
                        "the arguments must be a JSON object".into(),
                    ))
                }
            }
        } else {
            strict_json::parse_object(&call.arguments_raw).map_err(Rejection::Arguments)?
        };
        let instance = Value::Object(arguments);
        // Bounded: a call with 10,000 bad keys gets a short message, not a long one.
        let mut problems: Vec<String> = Vec::new();
        let mut more = 0;
        for error in entry.validator.iter_errors(&instance) {
            if problems.len() == MAX_PROBLEMS {
                more += 1;
                continue;
            }
            let field = error.instance_path().to_string();
            let problem = if field.is_empty() {
                format!("arguments: {error}")
            } else {
                format!("field {:?}: {error}", field.trim_start_matches('/'))
            };
            problems.push(crate::budget::cut_line(&problem, MAX_PROBLEM_BYTES));
        }
        if more > 0 {
            problems.push(format!("and {more} more problems"));
        }
        if !problems.is_empty() {
            return Err(Rejection::Arguments(format!(
                "invalid arguments for {}: {}",
                call.name,
                problems.join("; ")
            )));
        }
        let Value::Object(arguments) = instance else {
            unreachable!("built as an object")
        };
        check_ranges(&arguments).map_err(Rejection::Arguments)?;
        for key in entry.tool.path_arguments() {
            if let Some(path) = arguments.get(*key).and_then(Value::as_str) {
                check_path(root, config, path).map_err(|why| Rejection::Path {
                    field: key.to_string(),
                    why,
                })?;
            }
        }
        Ok(Validated {
            tool: entry.tool.as_ref(),
            arguments,
            approval: entry.approval,
        })
    }
}

/// The most schema problems one rejection lists, and the most bytes of each.
const MAX_PROBLEMS: usize = 5;
const MAX_PROBLEM_BYTES: usize = 300;

/// What a schema cannot say: whole numbers that fit (JSON Schema counts
/// `1.8e19` as an integer, and it would not survive the conversion), and a
/// line range in order and at most 400 lines.
fn check_ranges(arguments: &Map<String, Value>) -> Result<(), String> {
    for (key, value) in arguments {
        if let Value::Number(n) = value {
            if n.as_u64().is_none() && n.as_i64().is_none() {
                return Err(format!(
                    "field {key:?}: {n} is not a whole number evident can use"
                ));
            }
        }
    }
    let line = |key| arguments.get(key).and_then(Value::as_u64);
    if let (Some(start), Some(end)) = (line("start_line"), line("end_line")) {
        if end < start {
            return Err(format!(
                "field \"end_line\": {end} is before start_line {start}"
            ));
        }
        let max = u64::from(evident_index::MAX_READ_LINES);
        if end - start + 1 > max {
            return Err(format!(
                "field \"end_line\": the range is {} lines; at most {max} per read",
                end - start + 1
            ));
        }
    }
    Ok(())
}

/// A path argument (a file, or a directory to search under) must stay in
/// the repository (or a `[docs] dirs` mount) after normalisation and symlink
/// resolution, and must not be secret: the sandbox's rule for a scope.
fn check_path(root: &Path, config: &Config, requested: &str) -> Result<(), String> {
    evident_index::sandbox::check_scope(root, &config.docs_dirs, requested, &config.secrets)
        .map_err(|e| match e {
            evident_index::Error::Refused(why) => why,
            other => other.to_string(),
        })
}
