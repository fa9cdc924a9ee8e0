//! Ollama's native API: `POST /api/chat` (NDJSON stream), `POST /api/show`
//! (context length), `POST /api/embed`.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use crate::call_json::{decode_arguments, excerpt};
use crate::client::{ChatClient, WireRequest, WireStream};
use crate::error::LlmError;
use crate::http::{CancelToken, Http, HttpOptions, LineStream, ServerHints};
use crate::protocol::WireEvent;
use crate::types::{Message, ProtocolError, Role, ToolCall, Usage};

pub const DEFAULT_HOST: &str = "http://127.0.0.1:11434";

/// Settings of an [`OllamaClient`].
#[derive(Debug, Clone)]
pub struct OllamaOptions {
    /// Server address; `None`: `OLLAMA_HOST`, else [`DEFAULT_HOST`].
    pub host: Option<String>,
    /// How long the server keeps the model loaded after a request (`keep_alive`).
    pub keep_alive: Option<String>,
    /// The most context to ask for: the model's own length (from `/api/show`)
    /// is sent as `num_ctx`, capped here, since a large context costs memory.
    pub max_context: u32,
    pub http: HttpOptions,
}

impl Default for OllamaOptions {
    fn default() -> Self {
        OllamaOptions {
            host: None,
            keep_alive: Some("5m".into()),
            max_context: 16384,
            http: HttpOptions::default(),
        }
    }
}

pub struct OllamaClient {
    base: String,
    keep_alive: Option<String>,
    max_context: u32,
    http: Http,
    context_lengths: Mutex<HashMap<String, Option<u32>>>,
}

impl OllamaClient {
    pub fn new(options: OllamaOptions) -> Self {
        let base = normalize_host(
            &options
                .host
                .or_else(|| std::env::var("OLLAMA_HOST").ok())
                .unwrap_or_default(),
        );
        let hints = ServerHints {
            not_running: format!(
                "start it with `ollama serve` (or point OLLAMA_HOST at it; tried {base})"
            ),
            model_not_found:
                "pull it with `ollama pull {model}`, or list the installed ones with `ollama list`"
                    .into(),
        };
        OllamaClient {
            base,
            keep_alive: options.keep_alive,
            max_context: options.max_context,
            http: Http::new(options.http, hints),
            context_lengths: Mutex::new(HashMap::new()),
        }
    }

    /// The model's trained context length, from `/api/show` (cached per model).
    pub fn context_length(&self, model: &str) -> Result<Option<u32>, LlmError> {
        if let Some(known) = self.context_lengths.lock().unwrap().get(model) {
            return Ok(*known);
        }
        let show = self.http.post_json(
            &format!("{}/api/show", self.base),
            &json!({"model": model}),
            None,
            model,
        )?;
        let length = show
            .get("model_info")
            .and_then(Value::as_object)
            .and_then(|info| {
                info.iter()
                    .find(|(k, _)| k.ends_with(".context_length"))
                    .and_then(|(_, v)| v.as_u64())
            })
            .map(|n| n.min(u32::MAX as u64) as u32);
        self.context_lengths
            .lock()
            .unwrap()
            .insert(model.to_string(), length);
        Ok(length)
    }

    fn body(&self, request: &WireRequest, num_ctx: Option<u32>) -> Value {
        let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
        let mut body = json!({"model": request.model, "messages": messages, "stream": true});
        let object = body.as_object_mut().unwrap();
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect();
            object.insert("tools".into(), Value::Array(tools));
        }
        if let Some(schema) = &request.response_schema {
            object.insert("format".into(), schema.clone());
        }
        if let Some(think) = request.think {
            object.insert("think".into(), Value::Bool(think));
        }
        if let Some(keep_alive) = &self.keep_alive {
            object.insert("keep_alive".into(), Value::String(keep_alive.clone()));
        }
        let mut options = Map::new();
        if let Some(n) = num_ctx {
            options.insert("num_ctx".into(), n.into());
        }
        if let Some(t) = request.temperature {
            options.insert("temperature".into(), t.into());
        }
        if let Some(n) = request.max_tokens {
            options.insert("num_predict".into(), n.into());
        }
        if let Some(seed) = request.seed {
            options.insert("seed".into(), seed.into());
        }
        if !options.is_empty() {
            object.insert("options".into(), Value::Object(options));
        }
        body
    }
}

/// `OLLAMA_HOST` is `host`, `host:port` or a URL; `0.0.0.0` (a listen address) means this machine.
pub fn normalize_host(raw: &str) -> String {
    let raw = raw.trim().trim_end_matches('/');
    if raw.is_empty() {
        return DEFAULT_HOST.to_string();
    }
    let (scheme, rest) = match raw.split_once("://") {
        Some((scheme, rest)) => (scheme, rest),
        None => ("http", raw),
    };
    let rest = rest.replacen("0.0.0.0", "127.0.0.1", 1);
    let has_port = rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()));
    if has_port || rest.contains('/') {
        format!("{scheme}://{rest}")
    } else {
        format!("{scheme}://{rest}:11434")
    }
}

fn message_json(message: &Message) -> Value {
    let mut out = json!({"role": message.role, "content": message.content});
    let object = out.as_object_mut().unwrap();
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        object.insert("tool_calls".into(), Value::Array(calls));
    }
    if message.role == Role::Tool {
        if let Some(name) = &message.tool_name {
            object.insert("tool_name".into(), Value::String(name.clone()));
        }
    }
    out
}

impl ChatClient for OllamaClient {
    fn stream<'a>(
        &'a self,
        request: &WireRequest,
        cancel: &CancelToken,
    ) -> Result<Box<dyn WireStream + 'a>, LlmError> {
        // A missing or unreadable /api/show leaves the server's default context.
        let num_ctx = match self.context_length(&request.model) {
            Ok(length) => length.map(|n| n.min(self.max_context)),
            Err(
                e @ (LlmError::ServerNotRunning { .. }
                | LlmError::ModelNotFound { .. }
                | LlmError::Cancelled),
            ) => return Err(e),
            Err(_) => None,
        };
        let body = self.body(request, num_ctx);
        let lines = self.http.post_lines(
            &format!("{}/api/chat", self.base),
            body,
            None,
            &request.model,
            cancel,
        )?;
        Ok(Box::new(OllamaStream {
            lines,
            done: false,
            pending: VecDeque::new(),
        }))
    }

    fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let answer = self.http.post_json(
            &format!("{}/api/embed", self.base),
            &json!({"model": model, "input": inputs}),
            None,
            model,
        )?;
        let vectors = answer
            .get("embeddings")
            .and_then(Value::as_array)
            .ok_or_else(|| LlmError::InvalidStream {
                line: 1,
                excerpt: excerpt(&answer.to_string()),
                error: "no \"embeddings\" array".into(),
            })?;
        crate::openai::vectors(vectors.iter(), inputs.len())
    }

    fn endpoint(&self) -> String {
        self.base.clone()
    }
}

struct OllamaStream {
    lines: LineStream,
    done: bool,
    pending: VecDeque<WireEvent>,
}

impl WireStream for OllamaStream {
    fn next_event(&mut self) -> Result<Option<WireEvent>, LlmError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            if self.done {
                return Ok(None);
            }
            let Some(line) = self.lines.next_line()? else {
                return Err(self.lines.cut());
            };
            if line.trim().is_empty() {
                continue;
            }
            let value: Value =
                serde_json::from_str(&line).map_err(|e| LlmError::InvalidStream {
                    line: self.lines.lines,
                    excerpt: excerpt(&line),
                    error: e.to_string(),
                })?;
            self.pending = self.events(&value)?.into();
        }
    }
}

impl OllamaStream {
    fn events(&mut self, value: &Value) -> Result<Vec<WireEvent>, LlmError> {
        if let Some(error) = value.get("error") {
            let message = error
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| error.to_string());
            return Err(LlmError::Server { message });
        }
        let mut events = Vec::new();
        if let Some(message) = value.get("message") {
            if let Some(thinking) = message
                .get("thinking")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                events.push(WireEvent::Thinking(thinking.to_string()));
            }
            if let Some(content) = message
                .get("content")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                events.push(WireEvent::Content(content.to_string()));
            }
            if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
                let mut complete = Vec::new();
                for call in calls {
                    let function = call.get("function").unwrap_or(call);
                    let name = function
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let raw_arguments = function.get("arguments").cloned().unwrap_or(json!({}));
                    match decode_arguments(&raw_arguments.to_string()) {
                        Ok((arguments, arguments_raw)) if !name.is_empty() => {
                            complete.push(ToolCall {
                                index: 0,
                                id: call.get("id").and_then(Value::as_str).map(str::to_string),
                                name,
                                arguments,
                                arguments_raw,
                            })
                        }
                        Ok(_) => events.push(WireEvent::Malformed(ProtocolError {
                            raw: call.to_string(),
                            message: "a tool call without a function name".into(),
                        })),
                        Err(message) => events.push(WireEvent::Malformed(ProtocolError {
                            raw: call.to_string(),
                            message,
                        })),
                    }
                }
                if !complete.is_empty() {
                    events.push(WireEvent::Calls(complete));
                }
            }
        }
        if value.get("done").and_then(Value::as_bool) == Some(true) {
            self.done = true;
            let ns_to_ms = |key: &str| {
                value
                    .get(key)
                    .and_then(Value::as_u64)
                    .map(|ns| ns / 1_000_000)
            };
            events.push(WireEvent::Done(Usage {
                prompt_tokens: value.get("prompt_eval_count").and_then(Value::as_u64),
                completion_tokens: value.get("eval_count").and_then(Value::as_u64),
                total_ms: ns_to_ms("total_duration"),
                eval_ms: ns_to_ms("eval_duration"),
                prompt_ms: ns_to_ms("prompt_eval_duration"),
                finish_reason: value
                    .get("done_reason")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }));
        }
        Ok(events)
    }
}
