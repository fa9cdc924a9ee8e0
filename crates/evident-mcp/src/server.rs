//! The MCP handler: tool definitions from the agent's registry, each call
//! validated by that registry, run on a blocking thread with its own index
//! connection (so calls in flight run side by side), and answered as Evidence
//! twice: structured content and the text the agent's model would read, both
//! within the output budget.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use evident_agent::session::render_output;
use evident_agent::{budget, Registry, ToolContext, ToolError, ToolOutput};
use evident_index::Config;
use evident_llm::ToolCall;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::error::ServeError;
use crate::stdin::DUPLICATE_KEY_MARK;
use evident_agent::{stale_note, Freshness, Log, ProgressSink, Refresher};

/// What `evident mcp` is started with.
pub struct ServerOptions {
    /// The repository root (canonical).
    pub root: PathBuf,
    /// The most bytes of one result, text and structured content each.
    pub max_output_bytes: usize,
    /// The longest a call waits for a refresh before answering from the old index.
    pub refresh_wait: Duration,
    /// The least time between two stat passes over the indexed files.
    pub check_interval: Duration,
    /// Embed the chunks each refresh adds or changes, in the background,
    /// with the search service's embedder.
    pub embed_in_background: bool,
    pub log: Log,
}

/// Results are cut at this many bytes unless the client asks otherwise:
/// the agent's largest budget, which fits every client's context.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 24_000;

/// The MCP server (cheap to clone: one per connection shares everything).
#[derive(Clone)]
pub struct EvidentServer {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    tools: Vec<Tool>,
    context: ToolContext,
    refresher: Arc<Refresher>,
    max_output_bytes: usize,
    log: Log,
}

impl EvidentServer {
    /// The server for `options.root`; starts bringing its index up to date.
    pub fn new(options: ServerOptions, context: ToolContext) -> Result<EvidentServer, ServeError> {
        let registry = Registry::for_clients()?;
        let tools = registry
            .schemas()
            .into_iter()
            .map(|schema| {
                let Value::Object(input) = schema.parameters else {
                    return Err(ServeError::Setup(format!(
                        "{}: the schema is not an object",
                        schema.name
                    )));
                };
                let annotations = ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false);
                Ok(Tool::new(schema.name, schema.description, Arc::new(input))
                    .with_raw_output_schema(Arc::new(output_schema()))
                    .with_annotations(annotations))
            })
            .collect::<Result<Vec<_>, ServeError>>()?;
        let refresher = Refresher::new(
            options.root.clone(),
            context
                .search
                .embedder_handle()
                .filter(|_| options.embed_in_background),
            options.refresh_wait,
            options.check_interval,
            options.log.clone(),
        );
        refresher.start();
        Ok(EvidentServer {
            inner: Arc::new(Inner {
                registry,
                tools,
                context,
                refresher,
                max_output_bytes: options.max_output_bytes,
                log: options.log,
            }),
        })
    }

    /// The tool definitions the server lists.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let inner = &self.inner;
        let name = request.name.to_string();
        if inner.registry.get(&name).is_none() {
            // An unknown tool is a protocol error (MCP: -32602), not a result.
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {name:?}: there is no such tool (evident only reads); the tools are: {}",
                    inner.registry.names().join(", ")
                ),
                None,
            ));
        }
        if let Some(finding) = context.meta.get(DUPLICATE_KEY_MARK) {
            let finding = finding.as_str().unwrap_or("duplicate key");
            return Ok(error_result(format!(
                "the request has a {finding}: each key may appear once"
            )));
        }
        let root = inner.context.root.clone();
        let call = ToolCall {
            index: 0,
            id: None,
            name: name.clone(),
            arguments: Value::Object(request.arguments.unwrap_or_default()),
            arguments_raw: String::new(),
        };
        // The configuration is read per call: an edit to it applies at once.
        let config = match Config::load(&root) {
            Ok(config) => config,
            Err(error) => return Ok(error_result(format!("evident.toml: {error}"))),
        };
        let arguments = match inner.registry.validate(&call, &root, &config) {
            Ok(validated) => validated.arguments,
            Err(why) => return Ok(error_result(why.to_string())),
        };
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| Box::new(PeerProgress::new(context.peer.clone(), token)) as Box<_>);
        let freshness = inner.refresher.before_call(progress).await;
        let server = self.clone();
        let output = tokio::task::spawn_blocking(move || {
            let inner = &server.inner;
            let tool = inner.registry.get(&name).expect("validated above");
            tool.run(&inner.context, &arguments)
        })
        .await
        .unwrap_or_else(|e| Err(ToolError::Panicked(format!(": {e}"))));
        match output {
            Ok(output) => Ok(self.result(output, &freshness)),
            Err(why) => {
                let mut why = why.to_string();
                if let Some(note) = stale_note(&freshness) {
                    why = format!("{why}\n{note}");
                }
                Ok(error_result(why))
            }
        }
    }

    /// Evidence as text and as structured content, each within the budget.
    fn result(&self, output: ToolOutput, freshness: &Freshness) -> CallToolResult {
        let budget = self.inner.max_output_bytes;
        let (text, cut) = budget::cut(&render_output(&output), budget);
        let mut kept = Vec::new();
        let mut bytes = output.summary.len() + 100;
        for evidence in &output.evidence {
            let record = serde_json::to_value(evidence).unwrap_or(Value::Null);
            bytes += record.to_string().len() + 1;
            if bytes > budget {
                break;
            }
            kept.push(record);
        }
        let omitted = output.evidence.len() - kept.len();
        let mut structured = Map::new();
        structured.insert("summary".into(), json!(output.summary));
        structured.insert("evidence".into(), Value::Array(kept));
        structured.insert("omitted".into(), json!(omitted));
        structured.insert("stale".into(), json!(freshness != &Freshness::Fresh));
        let mut content = Vec::new();
        if let Some(note) = stale_note(freshness) {
            structured.insert("note".into(), json!(note));
            content.push(ContentBlock::text(note));
        }
        if cut || omitted > 0 {
            self.inner.log.line(&format!(
                "a result was cut to {budget} bytes ({omitted} records left out of the structured content)"
            ));
        }
        content.push(ContentBlock::text(text));
        let mut result = CallToolResult::success(content);
        result.structured_content = Some(Value::Object(structured));
        result
    }
}

fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The shape of every successful result's structured content.
fn output_schema() -> JsonObject {
    let evidence = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "relative to the repository root, '/'-separated"},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
            "kind": {"type": "string"},
            "name": {"type": "string"},
            "snippet": {"type": "string", "description": "the file's text for those lines"},
        },
        "required": ["path", "start_line", "end_line", "kind", "name", "snippet"],
    });
    let schema = json!({
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "evidence": {"type": "array", "items": evidence},
            "omitted": {"type": "integer", "minimum": 0, "description": "records left out to keep within the output budget"},
            "stale": {"type": "boolean", "description": "true when the index was being refreshed"},
            "note": {"type": "string"},
        },
        "required": ["summary", "evidence", "omitted", "stale"],
    });
    match schema {
        Value::Object(object) => object,
        _ => unreachable!("an object literal"),
    }
}

/// Sends `notifications/progress` for a waiting call, only when it moved.
struct PeerProgress {
    peer: Peer<RoleServer>,
    token: rmcp::model::ProgressToken,
    last: Option<u64>,
}

impl PeerProgress {
    fn new(peer: Peer<RoleServer>, token: rmcp::model::ProgressToken) -> PeerProgress {
        PeerProgress {
            peer,
            token,
            last: None,
        }
    }
}

impl ProgressSink for PeerProgress {
    fn report(&mut self, done: u64, total: u64) {
        if self.last.is_some_and(|last| done <= last) {
            return;
        }
        self.last = Some(done);
        let mut param = ProgressNotificationParam::new(self.token.clone(), done as f64)
            .with_message(format!("indexing: {done} of {total} files"));
        if total > 0 {
            param = param.with_total(total as f64);
        }
        let peer = self.peer.clone();
        tokio::spawn(async move {
            let _ = peer.notify_progress(param).await;
        });
    }
}

impl ServerHandler for EvidentServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("evident", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Read-only code intelligence over a local index of one repository. \
                 Every result is Evidence: path, 1-based inclusive lines, kind, name and the file's real text. \
                 Start with search_code or find_symbol, then read_evidence for the lines you need; \
                 find_importers, get_callers and analyze_impact answer who-uses-what.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context)
            .await
            .map(CallToolResponse::from)
    }
}
