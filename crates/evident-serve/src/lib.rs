//! `evident serve`: one repository's index, read-only, for a browser on
//! this machine.
//!
//! The principal type is [`Server`]: `Server::bind(options, context)?` then
//! `server.run(workers)`, serving `server.url()` until the process ends.
//!
//! Owns the HTTP surface and its guard. Every request passes [`guard`]
//! before anything is read: GET or HEAD only, a `Host` header naming this
//! server on the loopback address (a page elsewhere that rebinds its DNS name
//! to 127.0.0.1 is refused), and the run's random token (from the URL
//! printed at start, then a same-site cookie). Tools run through the agent's
//! [`Registry`]: the same argument validation, path sandbox and secret rules
//! as the agent and MCP. Answers are JSON or the embedded page, always with a
//! strict Content-Security-Policy. Before any of that, the front door
//! (`front.rs`) reads each request's head under size, line, time and
//! connection limits. It must not write, execute, reach the
//! network, listen beyond 127.0.0.1, or put a file's text into HTML: text
//! leaves only as JSON strings, for the page to set as text.

mod front;

use std::io::Write;
use std::path::{Path, PathBuf};

use evident_agent::{stale_note, Log, Refresher};
use evident_agent::{
    Limits, NonInteractive, Registry, RegistryError, Session, ToolContext, ToolOutput,
};
use evident_index::{Config, Index, SearchMode};
use evident_llm::{ChatClient, Protocol, ToolCall};
use serde_json::{json, Value};
use std::sync::Arc;

pub use front::DoorLimits;

/// What `evident serve` is started with.
pub struct ServeOptions {
    /// The repository root (canonical).
    pub root: PathBuf,
    /// The port on 127.0.0.1; 0 takes any free one.
    pub port: u16,
    /// The chat model for the ask page, or why there is none.
    pub ask: Result<AskSetup, String>,
    /// The longest a request waits for an index refresh before it is
    /// answered from the index as it was (marked stale), as MCP's calls.
    pub refresh_wait: std::time::Duration,
    /// What a connection may send and hold before the server reads it.
    pub door: DoorLimits,
}

/// The model the ask page's questions go to, as `evident ask` would use it.
pub struct AskSetup {
    pub client: Box<dyn ChatClient>,
    pub model: String,
    pub protocol: Protocol,
    pub limits: Limits,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on 127.0.0.1:{port}: {message}")]
    Bind { port: u16, message: String },
    #[error("no random token could be made: {0}")]
    Token(String),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("cannot start the refresh runtime: {0}")]
    Runtime(String),
    #[error("cannot make the server's private socket in {}: {message}", dir.display())]
    Socket { dir: PathBuf, message: String },
}

/// Sent with every answer. Nothing but this server's own scripts, styles
/// and connections; no frames, no forms, no plugins.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The cookie that carries the token after the first page load.
pub const TOKEN_COOKIE: &str = "evident_token";

/// The page, until the front-end build replaces it.
const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");
/// The graph library, loaded by the impact and diff pages only.
const GRAPH_JS: &str = include_str!("../assets/graph.js");

/// The page's addresses (`/file/app/main.py`): each is the same page.
/// The most results one search request returns to the page.
const SEARCH_LIMIT: usize = 30;

const PAGES: [&str; 8] = [
    "/search", "/file", "/symbol", "/impact", "/diff", "/ask", "/status", "/map",
];

/// The longest question the ask page sends on.
pub const MAX_QUESTION_BYTES: usize = 4000;

/// The most lines of one file the file view is sent.
pub const MAX_FILE_LINES: u32 = 20_000;

/// The server: bound, not yet answering (see [`Server::run`]).
pub struct Server {
    http: tiny_http::Server,
    /// Where connections are accepted and request heads read under limits.
    front: front::Front,
    /// The directory of `http`'s socket (only this user may enter it),
    /// removed with the server.
    _socket_dir: tempfile::TempDir,
    /// Threads in `run`, each to be woken by `stop`.
    workers: std::sync::atomic::AtomicUsize,
    port: u16,
    token: String,
    registry: Registry,
    context: ToolContext,
    ask: Result<AskSetup, String>,
    /// MCP's refresher: a stat pass before a request, an index run when
    /// something changed, a bounded wait for it.
    refresher: Arc<Refresher>,
    runtime: tokio::runtime::Runtime,
}

/// One answer, before it becomes an HTTP response.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Extra headers (`Set-Cookie`, `Location`, `Allow`).
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    fn json(status: u16, value: &Value) -> Reply {
        Reply {
            status,
            content_type: "application/json; charset=utf-8",
            body: value.to_string().into_bytes(),
            headers: Vec::new(),
        }
    }

    fn error(status: u16, message: impl Into<String>) -> Reply {
        Reply::json(status, &json!({ "error": message.into() }))
    }
}

/// What a request says about itself, as far as the guard and the routes care.
#[derive(Debug, Clone, Default)]
pub struct Asked<'a> {
    pub method: &'a str,
    /// The path and query as sent (`/api/tool/find_symbol?args=...`).
    pub url: &'a str,
    pub host: Option<&'a str>,
    pub cookie: Option<&'a str>,
}

impl Server {
    /// Binds 127.0.0.1:`port` and makes the run's token.
    pub fn bind(options: ServeOptions, context: ToolContext) -> Result<Server, ServeError> {
        let registry = Registry::for_clients()?;
        let socket_error = |message: String| ServeError::Socket {
            dir: std::env::temp_dir(),
            message,
        };
        // tempfile makes the directory with mode 0700.
        let socket_dir = tempfile::Builder::new()
            .prefix("evident-serve-")
            .tempdir()
            .map_err(|e| socket_error(e.to_string()))?;
        let socket = socket_dir.path().join("http.sock");
        let http =
            tiny_http::Server::http_unix(&socket).map_err(|e| socket_error(e.to_string()))?;
        let bind_error = |e: std::io::Error| ServeError::Bind {
            port: options.port,
            message: e.to_string(),
        };
        let front =
            front::Front::bind(options.port, socket, options.door.clone()).map_err(bind_error)?;
        let port = front.port().map_err(bind_error)?;
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| ServeError::Token(e.to_string()))?;
        let token = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| ServeError::Runtime(e.to_string()))?;
        let refresher = {
            let _entered = runtime.enter();
            let refresher = Refresher::new(
                options.root.clone(),
                context.search.embedder_handle(),
                options.refresh_wait,
                std::time::Duration::from_millis(250),
                Log::stderr().headed("evident serve"),
            );
            refresher.start();
            refresher
        };
        Ok(Server {
            refresher,
            runtime,
            http,
            front,
            _socket_dir: socket_dir,
            workers: std::sync::atomic::AtomicUsize::new(0),
            port,
            token,
            registry,
            context,
            ask: options.ask,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The address to open: the token is in it, once.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    fn root(&self) -> &Path {
        &self.context.root
    }

    /// Answers requests on `workers` threads until [`Server::stop`].
    pub fn run(&self, workers: usize) {
        let workers = workers.max(1);
        self.workers
            .store(workers, std::sync::atomic::Ordering::SeqCst);
        std::thread::scope(|scope| {
            scope.spawn(|| self.front.run());
            for _ in 0..workers {
                scope.spawn(|| {
                    for request in self.http.incoming_requests() {
                        self.respond(request);
                    }
                });
            }
        });
    }

    /// Makes [`Server::run`] return once the requests in hand are answered.
    pub fn stop(&self) {
        self.front.stop();
        // `unblock` wakes one thread waiting for a request: one per worker.
        for _ in 0..self.workers.load(std::sync::atomic::Ordering::SeqCst) {
            self.http.unblock();
        }
    }

    fn respond(&self, request: tiny_http::Request) {
        let header = |name: &'static str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.equiv(name))
                .map(|h| h.value.as_str().to_string())
        };
        let (host, cookie) = (header("Host"), header("Cookie"));
        let method = request.method().as_str().to_string();
        let url = request.url().to_string();
        let asked = Asked {
            method: &method,
            url: &url,
            host: host.as_deref(),
            cookie: cookie.as_deref(),
        };
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        if path == "/api/ask" && guard(&asked, self.port, &self.token).is_ok() {
            let question = form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "q")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            if let Ok(setup) = &self.ask {
                if !question.trim().is_empty() && question.len() <= MAX_QUESTION_BYTES {
                    // The tools answer from the index as the files are now.
                    self.runtime.block_on(self.refresher.before_call(None));
                    self.stream_answer(request, setup, &question);
                    return;
                }
            }
        }
        let mut reply = self.answer(&asked);
        let etag = reply
            .headers
            .iter()
            .find(|(n, _)| *n == "ETag")
            .map(|(_, v)| v.clone());
        if etag.is_some() && etag == header("If-None-Match") {
            reply.status = 304;
            reply.body.clear();
        }
        let head = method == "HEAD";
        let mut response =
            tiny_http::Response::from_data(if head { Vec::new() } else { reply.body })
                .with_status_code(reply.status);
        // The reply's own headers take the place of the defaults they name.
        let mut headers = security_headers(reply.content_type);
        headers.retain(|(name, _)| !reply.headers.iter().any(|(n, _)| n == name));
        for (name, value) in headers.into_iter().chain(reply.headers) {
            if let Ok(header) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(header);
            }
        }
        // A client that hung up gets nothing: there is no one to tell.
        let _ = request.respond(response);
    }

    /// The ask page's question, answered as server-sent events while the
    /// agent works: `step` for each event of its stream, then `answer`. Each
    /// event is written and flushed as it happens, on the request's own
    /// connection (a streamed response body would wait for 8 KB first).
    fn stream_answer(&self, request: tiny_http::Request, setup: &AskSetup, question: &str) {
        let mut out = request.into_writer();
        let mut head = String::from("HTTP/1.1 200 OK\r\n");
        for (name, value) in security_headers("text/event-stream; charset=utf-8") {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("Connection: close\r\n\r\n");
        let mut send = |name: &str, data: &Value| {
            let event = format!("event: {name}\ndata: {data}\n\n");
            out.write_all(head.as_bytes())
                .and_then(|()| {
                    head.clear();
                    out.write_all(event.as_bytes())
                })
                .and_then(|()| out.flush())
                .is_ok()
        };
        let registry = match Registry::read_only(&[]) {
            Ok(registry) => registry,
            Err(error) => {
                send("failed", &json!({ "error": error.to_string() }));
                return;
            }
        };
        let config = match Config::load(self.root()) {
            Ok(config) => config,
            Err(error) => {
                send(
                    "failed",
                    &json!({ "error": format!("evident.toml: {error}") }),
                );
                return;
            }
        };
        let mut session = Session::new(
            setup.client.as_ref(),
            setup.model.clone(),
            setup.protocol,
            &registry,
            &self.context,
            config,
            setup.limits.clone(),
        );
        // A reader that went away (the tab closed) stops the agent.
        let cancel = session.cancel.clone();
        let outcome = session.ask(question, &mut NonInteractive, &mut |step| {
            let value = serde_json::to_value(step).unwrap_or(Value::Null);
            if !send("step", &value) {
                cancel.cancel();
            }
        });
        send(
            "answer",
            &json!({
                "answer": outcome.answer,
                "citations": outcome.citations,
                "reason": format!("{:?}", outcome.reason),
                "rounds": outcome.rounds,
                "tool_calls": outcome.tool_calls,
            }),
        );
    }

    /// The answer to one request: the guard first, then the route.
    pub fn answer(&self, asked: &Asked) -> Reply {
        if let Err(refused) = guard(asked, self.port, &self.token) {
            return refused;
        }
        let (path, query) = asked.url.split_once('?').unwrap_or((asked.url, ""));
        let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        // The token arrived in the URL: keep it in a cookie and take it out
        // of the address bar (and so of the history).
        if param("token").is_some() {
            return Reply {
                status: 303,
                content_type: "text/plain; charset=utf-8",
                body: b"see /".to_vec(),
                headers: vec![
                    (
                        "Set-Cookie",
                        format!(
                            "{TOKEN_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
                            self.token
                        ),
                    ),
                    ("Location", path.to_string()),
                ],
            };
        }
        // The index is brought up to date first, as far as the wait allows.
        let stale = if path.starts_with("/api/") && !matches!(path, "/api/model" | "/api/tools") {
            stale_note(&self.runtime.block_on(self.refresher.before_call(None)))
        } else {
            None
        };
        let mut reply = self.route(path, &param);
        if let Some(note) = stale {
            reply.headers.push(("X-Evident-Stale", note));
        }
        reply
    }

    fn route<'p>(&self, path: &str, param: &dyn Fn(&str) -> Option<&'p str>) -> Reply {
        match path {
            "/" => page(),
            "/assets/app.js" => asset("text/javascript; charset=utf-8", APP_JS),
            "/assets/graph.js" => asset("text/javascript; charset=utf-8", GRAPH_JS),
            "/assets/app.css" => asset("text/css; charset=utf-8", APP_CSS),
            "/api/ask" => match &self.ask {
                Ok(setup) => Reply::error(
                    400,
                    format!(
                        "ask {}: the question (q) is empty or over {MAX_QUESTION_BYTES} bytes",
                        setup.model
                    ),
                ),
                Err(why) => Reply::error(503, format!("no model for the ask page: {why}")),
            },
            "/api/model" => Reply::json(
                200,
                &match &self.ask {
                    Ok(setup) => json!({ "model": setup.model }),
                    Err(why) => json!({ "model": null, "why": why }),
                },
            ),
            "/api/tools" => Reply::json(200, &json!({ "tools": self.registry.names() })),
            "/api/status" => self.status(),
            "/api/search" => self.search(&param),
            "/api/file" => self.with_index(|index| file_json(index, param("path").unwrap_or(""))),
            "/api/outline" => self.with_index(|index| {
                Ok(json!({ "evidence": index.outline(param("path").unwrap_or(""))? }))
            }),
            "/api/def" => self.with_index(|index| {
                let number = |name: &str| param(name).and_then(|v| v.parse::<u32>().ok());
                let line = number("line").ok_or_else(|| {
                    evident_index::Error::InvalidArgument("line: a whole number is needed".into())
                })?;
                let evidence =
                    index.definition_at(param("path").unwrap_or(""), line, number("col"))?;
                Ok(json!({ "evidence": evidence }))
            }),
            "/api/diff" => self.with_index(|index| {
                let report = index.diff(&evident_index::DiffRequest {
                    base: param("base").filter(|b| !b.is_empty()).map(str::to_string),
                    staged: false,
                    paths: Vec::new(),
                    impact_depth: 2,
                })?;
                let mut value = serde_json::to_value(&report).unwrap_or_default();
                if let Some(map) = value.as_object_mut() {
                    map.insert("risk".into(), json!(report.risk()));
                }
                Ok(value)
            }),
            "/api/callees" => self.with_index(|index| {
                let path = param("path").filter(|p| !p.is_empty());
                let evidence = index.callees(param("symbol").unwrap_or(""), path)?;
                Ok(json!({ "evidence": evidence }))
            }),
            "/api/map" => self.with_index(|index| {
                let level = param("level").unwrap_or("package");
                let level = evident_index::MapLevel::parse(level).ok_or_else(|| {
                    evident_index::Error::InvalidArgument(format!(
                        "unknown level {level:?}: package, file or definition"
                    ))
                })?;
                let depth = param("depth").and_then(|v| v.parse().ok());
                let under = param("path").filter(|p| !p.is_empty());
                let map = index.dependency_map(level, under, depth)?;
                Ok(serde_json::to_value(&map).unwrap_or_default())
            }),
            "/api/impact" => self.with_index(|index| {
                let depth = param("depth").and_then(|v| v.parse().ok()).unwrap_or(3);
                let limit = param("limit").and_then(|v| v.parse().ok()).unwrap_or(200);
                let impact = index.impact(
                    param("symbol").unwrap_or(""),
                    param("path").filter(|p| !p.is_empty()),
                    depth,
                    limit,
                )?;
                Ok(json!({
                    "targets": impact.targets,
                    "nodes": impact.nodes,
                    "edges": impact.edges,
                    "possible": impact.possible.sites,
                    "possible_total": impact.possible.total,
                    "omitted": impact.omitted,
                }))
            }),
            _ => {
                if let Some(name) = path.strip_prefix("/api/tool/") {
                    let name = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
                    return self.tool(&name, param("args").unwrap_or("{}"));
                }
                // The page's own addresses: one page, which reads the path.
                let page_path = PAGES
                    .iter()
                    .any(|p| path == *p || path.starts_with(&format!("{p}/")));
                if !page_path {
                    return Reply::error(404, format!("no page at {path}"));
                }
                page()
            }
        }
    }

    /// Search as `evident search` runs it (the one search service), with the
    /// page's filters: kind, path and language.
    fn search<'p>(&self, param: &dyn Fn(&str) -> Option<&'p str>) -> Reply {
        let query = param("q").unwrap_or("").trim();
        if query.is_empty() {
            return Reply::json(200, &json!({ "evidence": [], "notes": [] }));
        }
        let kind = match param("kind").filter(|k| !k.is_empty()) {
            Some(kind) => match evident_index::Kind::parse(kind) {
                Some(kind) => Some(kind),
                None => return Reply::error(400, format!("unknown kind {kind:?}")),
            },
            None => None,
        };
        let language = param("language").filter(|l| !l.is_empty());
        // The page asks for a few BM25 results at each keystroke and for
        // hybrid ones when typing pauses.
        let mode = match param("mode").unwrap_or("hybrid") {
            "bm25" => SearchMode::Bm25,
            "vector" => SearchMode::Vector,
            "hybrid" => SearchMode::Hybrid,
            other => {
                return Reply::error(
                    400,
                    format!("unknown mode {other:?}: bm25, vector or hybrid"),
                )
            }
        };
        let limit = match param("limit").map(str::parse::<usize>) {
            None => SEARCH_LIMIT,
            Some(Ok(n)) if (1..=SEARCH_LIMIT).contains(&n) => n,
            Some(_) => return Reply::error(400, format!("limit must be 1 to {SEARCH_LIMIT}")),
        };
        let request = evident_index::SearchQuery {
            limit,
            kind,
            path: param("path").filter(|p| !p.is_empty()).map(str::to_string),
            language: language.map(str::to_string),
            mode,
            ..evident_index::SearchQuery::new(query)
        };
        self.with_index(|index| {
            let answer = self
                .context
                .search
                .search(self.root(), index, &request)
                .map_err(|e| evident_index::Error::InvalidArgument(e.to_string()))?;
            Ok(json!({ "evidence": answer.results, "notes": answer.notes }))
        })
    }

    /// Answers from the index as it is on disk now (a connection per request).
    fn with_index(&self, query: impl FnOnce(&Index) -> evident_index::Result<Value>) -> Reply {
        let index = match Index::open(self.root()) {
            Ok(index) => index,
            Err(error) => return Reply::error(503, error.to_string()),
        };
        match query(&index) {
            Ok(value) => Reply::json(200, &value),
            Err(error) => Reply::error(422, error.to_string()),
        }
    }

    fn status(&self) -> Reply {
        let status = Index::open(self.root()).and_then(|index| index.status());
        match status {
            Ok(s) => Reply::json(200, &serde_json::to_value(&s).unwrap_or_default()),
            Err(error) => Reply::error(503, error.to_string()),
        }
    }

    /// Runs one allow-listed tool with its arguments as JSON text, checked
    /// by the registry as any model's or client's call is.
    fn tool(&self, name: &str, arguments: &str) -> Reply {
        let call = ToolCall {
            index: 0,
            id: None,
            name: name.to_string(),
            arguments: Value::Null,
            arguments_raw: arguments.to_string(),
        };
        let Some(tool) = self.registry.get(name) else {
            return Reply::error(
                404,
                format!(
                    "unknown tool {name:?}; the tools are: {}",
                    self.registry.names().join(", ")
                ),
            );
        };
        // Read per call, as MCP does: an edit to evident.toml applies at once.
        let config = match Config::load(self.root()) {
            Ok(config) => config,
            Err(error) => return Reply::error(500, format!("evident.toml: {error}")),
        };
        let arguments = match self.registry.validate(&call, self.root(), &config) {
            Ok(validated) => validated.arguments,
            Err(why) => return Reply::error(400, why.to_string()),
        };
        match tool.run(&self.context, &arguments) {
            Ok(output) => Reply::json(200, &output_json(&output)),
            Err(why) => Reply::error(422, why.to_string()),
        }
    }
}

/// A whole file (up to [`MAX_FILE_LINES`]), read through the index's sandbox
/// in the reads `read` allows, as lines of text.
fn file_json(index: &Index, path: &str) -> evident_index::Result<Value> {
    let step = evident_index::MAX_READ_LINES;
    let mut lines: Vec<String> = Vec::new();
    let mut rel = path.to_string();
    let mut start = 1u32;
    while start <= MAX_FILE_LINES {
        let end = start + step - 1;
        let part = match index.read(path, i64::from(start), i64::from(end)) {
            Ok(part) => part,
            // Past the end of a file whose length is a multiple of the step.
            Err(evident_index::Error::InvalidArgument(_)) if start > 1 => break,
            Err(error) => return Err(error),
        };
        rel = part.path.clone();
        lines.extend(part.snippet.split('\n').map(str::to_string));
        if part.end_line < end {
            break;
        }
        start = end + 1;
    }
    Ok(json!({ "path": rel, "lines": lines, "cut": start > MAX_FILE_LINES }))
}

/// An embedded asset: the browser may keep it, and asks again with its
/// `ETag` (a hash of the text), which a 304 answers without the body.
fn asset(content_type: &'static str, text: &'static str) -> Reply {
    // FNV-1a: a fingerprint of the bytes, not a secret.
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    Reply {
        status: 200,
        content_type,
        body: text.as_bytes().to_vec(),
        headers: vec![
            ("ETag", format!("\"{hash:016x}\"")),
            ("Cache-Control", "no-cache".to_string()),
        ],
    }
}

/// Sent with every answer: what it is, and the policy that keeps it inert.
fn security_headers(content_type: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", content_type.to_string()),
        (
            "Content-Security-Policy",
            CONTENT_SECURITY_POLICY.to_string(),
        ),
        ("X-Content-Type-Options", "nosniff".to_string()),
        ("Referrer-Policy", "no-referrer".to_string()),
        ("X-Frame-Options", "DENY".to_string()),
        ("Cache-Control", "no-store".to_string()),
        ("Cross-Origin-Resource-Policy", "same-origin".to_string()),
    ]
}

/// The one page (it reads its address to know what to show).
fn page() -> Reply {
    Reply {
        status: 200,
        content_type: "text/html; charset=utf-8",
        body: INDEX_HTML.as_bytes().to_vec(),
        headers: Vec::new(),
    }
}

fn output_json(output: &ToolOutput) -> Value {
    json!({ "summary": output.summary, "evidence": output.evidence })
}

/// Lets a request through only when it is a GET or HEAD, names this server
/// as its `Host`, and carries the run's token (in the URL or the cookie).
pub fn guard(asked: &Asked, port: u16, token: &str) -> Result<(), Reply> {
    if !matches!(asked.method, "GET" | "HEAD") {
        let mut refused = Reply::error(
            405,
            format!("{} is not answered: evident serve only reads", asked.method),
        );
        refused.headers.push(("Allow", "GET, HEAD".to_string()));
        return Err(refused);
    }
    let ours = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    match asked.host {
        Some(host) if ours.iter().any(|o| o.eq_ignore_ascii_case(host)) => {}
        Some(host) => {
            return Err(Reply::error(
                403,
                format!("Host {host:?} is not this server (open {})", ours[0]),
            ))
        }
        None => return Err(Reply::error(403, "no Host header")),
    }
    let query = asked.url.split_once('?').map_or("", |(_, q)| q);
    let from_url = form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned());
    let from_cookie = asked.cookie.and_then(|cookies| {
        cookies.split(';').find_map(|c| {
            let (name, value) = c.trim().split_once('=')?;
            (name == TOKEN_COOKIE).then(|| value.to_string())
        })
    });
    let offered = from_url.or(from_cookie);
    match offered {
        Some(offered) if same(offered.as_bytes(), token.as_bytes()) => Ok(()),
        Some(_) => Err(Reply::error(
            403,
            "wrong token: open the URL evident serve printed",
        )),
        None => Err(Reply::error(
            403,
            "no token: open the URL evident serve printed",
        )),
    }
}

/// Equal, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
