//! The HTTP plumbing both clients share: one POST with retries and typed
//! errors, and a reply body read line by line on a worker thread, so the
//! caller can enforce first-token and idle timeouts and cancel at once.

use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{LlmError, TimeoutPhase};

/// Cancels a running turn from another thread (Ctrl-C).
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Timeouts and retries of a client.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub connect_timeout: Duration,
    /// From sending the request to the first line of the reply (model load and prompt reading).
    pub first_token_timeout: Duration,
    /// Between two lines of a reply that has started.
    pub idle_timeout: Duration,
    /// Attempts for connection errors and 5xx answers (4xx are never retried).
    pub attempts: u32,
    /// The first wait between attempts; it doubles each time.
    pub backoff: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            connect_timeout: Duration::from_secs(5),
            first_token_timeout: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
            attempts: 3,
            backoff: Duration::from_millis(250),
        }
    }
}

/// What to say when something goes wrong, per kind of server.
#[derive(Debug, Clone)]
pub(crate) struct ServerHints {
    pub not_running: String,
    /// `{model}` is replaced by the model's name.
    pub model_not_found: String,
}

pub(crate) struct Http {
    agent: ureq::Agent,
    pub options: HttpOptions,
    pub hints: ServerHints,
}

impl Http {
    pub fn new(options: HttpOptions, hints: ServerHints) -> Self {
        let read_limit =
            options.first_token_timeout.max(options.idle_timeout) + Duration::from_secs(5);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(options.connect_timeout))
            .timeout_per_read(Some(read_limit))
            .build()
            .new_agent();
        Http {
            agent,
            options,
            hints,
        }
    }

    /// POSTs `body` and returns the successful response, retrying what may pass on a second try.
    fn post(
        &self,
        url: &str,
        body: &Value,
        bearer: Option<&str>,
        model: &str,
    ) -> Result<ureq::Body, LlmError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.post_once(url, body, bearer, model) {
                Err(error) if error.is_retryable() && attempt < self.options.attempts => {
                    std::thread::sleep(self.options.backoff * 2u32.pow(attempt - 1));
                }
                other => return other,
            }
        }
    }

    fn post_once(
        &self,
        url: &str,
        body: &Value,
        bearer: Option<&str>,
        model: &str,
    ) -> Result<ureq::Body, LlmError> {
        let mut request = self.agent.post(url).header(
            "Accept",
            "application/x-ndjson, text/event-stream, application/json",
        );
        if let Some(key) = bearer {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let response = request
            .send_json(body)
            .map_err(|e| self.transport_error(url, e))?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        if status < 400 {
            return Ok(body);
        }
        let mut text = String::new();
        let _ = body.as_reader().take(64 * 1024).read_to_string(&mut text);
        Err(self.status_error(status, &text, model))
    }

    /// POSTs and reads the whole JSON answer (for `/api/show`, embeddings).
    pub fn post_json(
        &self,
        url: &str,
        body: &Value,
        bearer: Option<&str>,
        model: &str,
    ) -> Result<Value, LlmError> {
        let mut response = self.post(url, body, bearer, model)?;
        let text = response
            .with_config()
            .limit(256 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| self.transport_error(url, e))?;
        serde_json::from_str(&text).map_err(|e| LlmError::InvalidStream {
            line: 1,
            excerpt: crate::call_json::excerpt(&text),
            error: e.to_string(),
        })
    }

    /// POSTs and streams the answer's lines.
    pub fn post_lines(
        &self,
        url: &str,
        body: Value,
        bearer: Option<String>,
        model: &str,
        cancel: &CancelToken,
    ) -> Result<LineStream, LlmError> {
        let (tx, rx) = mpsc::sync_channel::<Result<String, LlmError>>(256);
        let (ready_tx, ready_rx) = mpsc::sync_channel::<Result<(), LlmError>>(1);
        let this = Http {
            agent: self.agent.clone(),
            options: self.options.clone(),
            hints: self.hints.clone(),
        };
        let url_owned = url.to_string();
        let model = model.to_string();
        std::thread::spawn(move || {
            let body = match this.post(&url_owned, &body, bearer.as_deref(), &model) {
                Ok(body) => {
                    let _ = ready_tx.send(Ok(()));
                    body
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let mut reader = BufReader::new(body.into_reader());
            let mut line = String::new();
            loop {
                line.clear();
                match (&mut reader).take(MAX_LINE_BYTES + 1).read_line(&mut line) {
                    Ok(0) => return,
                    Ok(n) if n as u64 > MAX_LINE_BYTES => {
                        let _ = tx.send(Err(LlmError::TooLarge {
                            what: "one line of the stream",
                            limit: MAX_LINE_BYTES,
                        }));
                        return;
                    }
                    Ok(_) => {
                        if tx
                            .send(Ok(line.trim_end_matches(['\r', '\n']).to_string()))
                            .is_err()
                        {
                            return; // the reader went away (cancelled, timed out)
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(LlmError::Transport {
                            url: url_owned.clone(),
                            message: e.to_string(),
                        }));
                        return;
                    }
                }
            }
        });
        let started = Instant::now();
        // Connection and status are known before any line: wait for them, cancellably.
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            match ready_rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Ok(())) => break,
                Ok(Err(e)) => return Err(e),
                Err(RecvTimeoutError::Timeout) => {
                    if started.elapsed() > self.options.first_token_timeout {
                        return Err(LlmError::Timeout {
                            phase: TimeoutPhase::FirstToken,
                            after: self.options.first_token_timeout,
                        });
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(LlmError::Transport {
                        url: url.to_string(),
                        message: "request thread ended".into(),
                    })
                }
            }
        }
        Ok(LineStream {
            rx,
            cancel: cancel.clone(),
            started,
            first_token: self.options.first_token_timeout,
            idle: self.options.idle_timeout,
            lines: 0,
            bytes: 0,
        })
    }

    fn transport_error(&self, url: &str, error: ureq::Error) -> LlmError {
        use ureq::Timeout;
        match error {
            ureq::Error::Io(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionRefused
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::NotFound
                ) =>
            {
                self.not_running(url)
            }
            ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => self.not_running(url),
            ureq::Error::Timeout(Timeout::Connect | Timeout::Resolve) => LlmError::Timeout {
                phase: TimeoutPhase::Connect,
                after: self.options.connect_timeout,
            },
            ureq::Error::Timeout(Timeout::PerRead | Timeout::RecvResponse) => LlmError::Timeout {
                phase: TimeoutPhase::FirstToken,
                after: self.options.first_token_timeout,
            },
            other => LlmError::Transport {
                url: url.to_string(),
                message: other.to_string(),
            },
        }
    }

    fn not_running(&self, url: &str) -> LlmError {
        LlmError::ServerNotRunning {
            url: url.to_string(),
            hint: self.hints.not_running.clone(),
        }
    }

    /// A 4xx/5xx answer, read for what it says.
    fn status_error(&self, status: u16, body: &str, model: &str) -> LlmError {
        let message = error_message(body).unwrap_or_else(|| match body.trim() {
            "" => "no details (the body was empty)".to_string(),
            text => crate::call_json::excerpt(text),
        });
        let lower = message.to_lowercase();
        if lower.contains("context")
            && (lower.contains("exceed") || lower.contains("length") || lower.contains("too long"))
            || lower.contains("too many tokens")
        {
            return LlmError::ContextOverflow { message };
        }
        if status == 404 && (lower.contains("model") || lower.contains("not found")) {
            return LlmError::ModelNotFound {
                model: model.to_string(),
                hint: self.hints.model_not_found.replace("{model}", model),
            };
        }
        LlmError::Http { status, message }
    }
}

/// `{"error": "..."}` (Ollama) or `{"error": {"message": "..."}}` (OpenAI-compatible).
pub(crate) fn error_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body.trim()).ok()?;
    match value.get("error")? {
        Value::String(message) => Some(message.clone()),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string),
        other => Some(other.to_string()),
    }
}

/// The lines of a streamed reply, with the timeouts and cancellation applied.
/// The longest line of a reply stream read (a line is one message; no real
/// one comes near this).
const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;
/// The most bytes of one reply stream read: a server that never stops talking
/// is cut here, and what arrived is kept.
const MAX_STREAM_BYTES: u64 = 32 * 1024 * 1024;

pub(crate) struct LineStream {
    rx: Receiver<Result<String, LlmError>>,
    cancel: CancelToken,
    started: Instant,
    first_token: Duration,
    idle: Duration,
    pub lines: u64,
    pub bytes: u64,
}

impl LineStream {
    /// The next line; `Ok(None)` at the end of the body.
    pub fn next_line(&mut self) -> Result<Option<String>, LlmError> {
        let (phase, limit) = if self.lines == 0 {
            (TimeoutPhase::FirstToken, self.first_token)
        } else {
            (TimeoutPhase::Idle, self.idle)
        };
        let waiting_since = if self.lines == 0 {
            self.started
        } else {
            Instant::now()
        };
        loop {
            if self.cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            match self.rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Ok(line)) => {
                    self.lines += 1;
                    self.bytes += line.len() as u64 + 1;
                    if self.bytes > MAX_STREAM_BYTES {
                        return Err(LlmError::TooLarge {
                            what: "the whole reply",
                            limit: MAX_STREAM_BYTES,
                        });
                    }
                    return Ok(Some(line));
                }
                Ok(Err(error @ LlmError::TooLarge { .. })) => return Err(error),
                Ok(Err(_)) => {
                    return Err(LlmError::StreamCut {
                        bytes: self.bytes,
                        lines: self.lines,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
                Err(RecvTimeoutError::Timeout) => {
                    if waiting_since.elapsed() >= limit {
                        return Err(LlmError::Timeout {
                            phase,
                            after: limit,
                        });
                    }
                }
            }
        }
    }

    pub fn cut(&self) -> LlmError {
        LlmError::StreamCut {
            bytes: self.bytes,
            lines: self.lines,
        }
    }
}
