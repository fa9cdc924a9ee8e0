//! OpenAI-compatible servers (llama.cpp's `llama-server`, vLLM, mlx_lm.server,
//! LM Studio, Ollama's `/v1`): `POST {base}/chat/completions` as server-sent
//! events, and `POST {base}/embeddings`.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{json, Value};

use crate::call_json::{decode_arguments, excerpt};
use crate::client::{ChatClient, WireRequest, WireStream};
use crate::error::LlmError;
use crate::http::{CancelToken, Http, HttpOptions, LineStream, ServerHints};
use crate::protocol::WireEvent;
use crate::types::{Message, ProtocolError, Role, ToolCall, Usage};

pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080/v1";

/// Settings of an [`OpenAiClient`].
#[derive(Debug, Clone, Default)]
pub struct OpenAiOptions {
    /// The base URL ending in `/v1`; `None`: `OPENAI_BASE_URL`, else [`DEFAULT_BASE_URL`].
    pub base_url: Option<String>,
    /// `None`: `OPENAI_API_KEY`, if set. Local servers usually need none.
    pub api_key: Option<String>,
    pub http: HttpOptions,
}

pub struct OpenAiClient {
    base: String,
    api_key: Option<String>,
    http: Http,
}

impl OpenAiClient {
    pub fn new(options: OpenAiOptions) -> Self {
        let base = options
            .base_url
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok())
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string())
            .trim_end_matches('/')
            .to_string();
        let api_key = options
            .api_key
            .or_else(|| std::env::var("OPENAI_API_KEY").ok())
            .filter(|k| !k.is_empty());
        let hints = ServerHints {
            not_running: format!(
                "start an OpenAI-compatible server there (for example `llama-server -m MODEL.gguf --jinja --port 8080`) \
                 or point --base-url / OPENAI_BASE_URL at one (tried {base})"
            ),
            model_not_found: "the server does not serve {model}: check the names it lists at GET /v1/models".into(),
        };
        OpenAiClient {
            base,
            api_key,
            http: Http::new(options.http, hints),
        }
    }

    fn body(request: &WireRequest) -> Value {
        let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
        let mut body = json!({
            "model": request.model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        let object = body.as_object_mut().unwrap();
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect();
            object.insert("tools".into(), Value::Array(tools));
            object.insert("tool_choice".into(), Value::String("auto".into()));
        }
        if let Some(schema) = &request.response_schema {
            object.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": schema}}),
            );
        }
        if let Some(t) = request.temperature {
            object.insert("temperature".into(), t.into());
        }
        if let Some(n) = request.max_tokens {
            object.insert("max_tokens".into(), n.into());
        }
        if let Some(seed) = request.seed {
            object.insert("seed".into(), seed.into());
        }
        body
    }
}

fn message_json(message: &Message) -> Value {
    let mut out = json!({"role": message.role, "content": message.content});
    let object = out.as_object_mut().unwrap();
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|c| {
                json!({
                    "id": call_id(c),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments.to_string()},
                })
            })
            .collect();
        object.insert("tool_calls".into(), Value::Array(calls));
    }
    if message.role == Role::Tool {
        if let Some(id) = &message.tool_call_id {
            object.insert("tool_call_id".into(), Value::String(id.clone()));
        }
    }
    out
}

fn call_id(call: &ToolCall) -> String {
    call.id
        .clone()
        .unwrap_or_else(|| format!("call_{}", call.index))
}

/// Vectors from an embeddings answer, checked against the number of inputs.
pub(crate) fn vectors<'a>(
    items: impl Iterator<Item = &'a Value>,
    expected: usize,
) -> Result<Vec<Vec<f32>>, LlmError> {
    let out: Vec<Vec<f32>> = items
        .map(|v| {
            v.as_array()
                .map(|xs| {
                    xs.iter()
                        .filter_map(Value::as_f64)
                        .map(|x| x as f32)
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    if out.len() != expected || out.iter().any(Vec::is_empty) {
        return Err(LlmError::InvalidStream {
            line: 1,
            excerpt: format!("{} vectors for {expected} inputs", out.len()),
            error: "the embeddings answer does not match the inputs".into(),
        });
    }
    Ok(out)
}

impl ChatClient for OpenAiClient {
    fn stream<'a>(
        &'a self,
        request: &WireRequest,
        cancel: &CancelToken,
    ) -> Result<Box<dyn WireStream + 'a>, LlmError> {
        let url = format!("{}/chat/completions", self.base);
        let lines = self.http.post_lines(
            &url,
            Self::body(request),
            self.api_key.clone(),
            &request.model,
            cancel,
        )?;
        Ok(Box::new(SseStream {
            lines,
            data: String::new(),
            calls: BTreeMap::new(),
            usage: Usage::default(),
            finished: false,
            done: false,
            pending: VecDeque::new(),
        }))
    }

    fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let url = format!("{}/embeddings", self.base);
        let answer = self.http.post_json(
            &url,
            &json!({"model": model, "input": inputs}),
            self.api_key.as_deref(),
            model,
        )?;
        let mut data: Vec<&Value> = answer
            .get("data")
            .and_then(Value::as_array)
            .map(|d| d.iter().collect())
            .unwrap_or_default();
        data.sort_by_key(|d| d.get("index").and_then(Value::as_u64).unwrap_or(0));
        vectors(data.iter().filter_map(|d| d.get("embedding")), inputs.len())
    }

    fn endpoint(&self) -> String {
        self.base.clone()
    }
}

/// A call being assembled from deltas.
#[derive(Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
    announced: bool,
    /// Order of first appearance: the call's index in the reply.
    position: usize,
}

struct SseStream {
    lines: LineStream,
    /// `data:` lines of the event being read.
    data: String,
    calls: BTreeMap<u64, PartialCall>,
    usage: Usage,
    /// A `finish_reason` arrived.
    finished: bool,
    /// `[DONE]` arrived, or the stream ended after a finish.
    done: bool,
    pending: VecDeque<WireEvent>,
}

impl WireStream for SseStream {
    fn next_event(&mut self) -> Result<Option<WireEvent>, LlmError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            if self.done {
                return Ok(None);
            }
            match self.lines.next_line()? {
                None => {
                    // Some servers close without `[DONE]`; a finished reply is still whole.
                    if !self.data.is_empty() {
                        self.dispatch()?;
                    }
                    if self.finished {
                        self.end();
                        continue;
                    }
                    return Err(self.lines.cut());
                }
                Some(line) if line.is_empty() => self.dispatch()?,
                Some(line) if line.starts_with(':') => {} // comment / keep-alive
                Some(line) => {
                    if let Some(data) = line.strip_prefix("data:") {
                        if !self.data.is_empty() {
                            self.data.push('\n');
                        }
                        self.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                    } else if line.starts_with('{') {
                        // Not SSE at all: a plain JSON error body on a 200.
                        self.data = line;
                        self.dispatch()?;
                    }
                    // `event:`, `id:`, `retry:` carry nothing we use.
                }
            }
        }
    }
}

impl SseStream {
    /// Handles one complete SSE event.
    fn dispatch(&mut self) -> Result<(), LlmError> {
        let data = std::mem::take(&mut self.data);
        if data.is_empty() {
            return Ok(());
        }
        if data.trim() == "[DONE]" {
            self.end();
            return Ok(());
        }
        let value: Value = serde_json::from_str(&data).map_err(|e| LlmError::InvalidStream {
            line: self.lines.lines,
            excerpt: excerpt(&data),
            error: e.to_string(),
        })?;
        if let Some(error) = value.get("error") {
            let message =
                crate::http::error_message(&value.to_string()).unwrap_or_else(|| error.to_string());
            return Err(LlmError::Server { message });
        }
        if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
            self.usage.prompt_tokens = usage.get("prompt_tokens").and_then(Value::as_u64);
            self.usage.completion_tokens = usage.get("completion_tokens").and_then(Value::as_u64);
        }
        if let Some(timings) = value.get("timings") {
            // llama.cpp adds its own timings.
            let ms = |k: &str| timings.get(k).and_then(Value::as_f64).map(|x| x as u64);
            self.usage.eval_ms = ms("predicted_ms");
            self.usage.prompt_ms = ms("prompt_ms");
            self.usage.total_ms = ms("prompt_ms").zip(ms("predicted_ms")).map(|(a, b)| a + b);
        }
        let Some(choice) = value
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(());
        };
        let delta = choice
            .get("delta")
            .or_else(|| choice.get("message"))
            .cloned()
            .unwrap_or(Value::Null);
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                self.pending
                    .push_back(WireEvent::Thinking(text.to_string()));
            }
        }
        if let Some(text) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            self.pending.push_back(WireEvent::Content(text.to_string()));
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.call_delta(position, call);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.usage.finish_reason = Some(reason.to_string());
            self.finished = true;
            self.flush_calls();
        }
        Ok(())
    }

    /// One streamed fragment of a tool call: its id and name when first
    /// seen, then pieces of its arguments.
    fn call_delta(&mut self, position: usize, call: &Value) {
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64);
        let next = self.calls.len();
        let partial = self.calls.entry(index).or_insert_with(|| PartialCall {
            position: next,
            ..Default::default()
        });
        let next = partial.position;
        if let Some(id) = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            partial.id = Some(id.to_string());
        }
        let function = call.get("function").cloned().unwrap_or(Value::Null);
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            partial.name.push_str(name);
        }
        if !partial.announced && !partial.name.is_empty() {
            partial.announced = true;
            self.pending.push_back(WireEvent::CallStarted {
                index: next,
                name: partial.name.clone(),
            });
        }
        if let Some(fragment) = function.get("arguments") {
            let text = match fragment {
                Value::String(s) => s.clone(),
                other => other.to_string(), // some servers send an object
            };
            if !text.is_empty() {
                partial.arguments.push_str(&text);
                self.pending
                    .push_back(WireEvent::CallDelta { index: next, text });
            }
        }
    }

    fn flush_calls(&mut self) {
        let mut complete = Vec::new();
        for (_, call) in std::mem::take(&mut self.calls) {
            let raw = if call.arguments.trim().is_empty() {
                "{}".to_string()
            } else {
                call.arguments.clone()
            };
            match decode_arguments(&raw) {
                Ok((arguments, arguments_raw)) if !call.name.is_empty() => {
                    complete.push(ToolCall {
                        index: complete.len(),
                        id: call.id,
                        name: call.name,
                        arguments,
                        arguments_raw,
                    })
                }
                Ok(_) => self.pending.push_back(WireEvent::Malformed(ProtocolError {
                    raw: call.arguments,
                    message: "a tool call without a function name".into(),
                })),
                Err(message) => self.pending.push_back(WireEvent::Malformed(ProtocolError {
                    raw: call.arguments,
                    message: format!(
                        "the arguments of {:?} are not valid JSON: {message}",
                        call.name
                    ),
                })),
            }
        }
        if !complete.is_empty() {
            self.pending.push_back(WireEvent::Calls(complete));
        }
    }

    fn end(&mut self) {
        self.flush_calls();
        self.pending.push_back(WireEvent::Done(self.usage.clone()));
        self.done = true;
    }
}
