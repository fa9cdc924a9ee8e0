//! An in-process fake model server: a real HTTP/1.1 server on 127.0.0.1 that
//! replays scripted replies byte for byte (Ollama NDJSON, OpenAI SSE), with
//! fault modes. It records every request it gets.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// How a streamed reply ends.
#[derive(Clone, Debug)]
pub enum End {
    /// The terminating chunk is sent.
    Complete,
    /// The connection is closed mid-body.
    Cut,
    /// Nothing more is sent for this long, then the connection closes.
    Stall(Duration),
}

#[derive(Clone, Debug)]
pub enum Script {
    /// 200, chunked; each piece is written and flushed on its own.
    Stream {
        content_type: &'static str,
        pieces: Vec<Vec<u8>>,
        end: End,
    },
    /// A whole answer with this status.
    Answer { status: u16, body: String },
    /// The connection is closed without an answer.
    Hangup,
    /// Nothing is sent for this long (a model still loading), then the connection closes.
    Silent(Duration),
    /// The script, after this long (a model that takes its time, then answers).
    Delayed(Duration, Box<Script>),
    /// An Ollama `/api/embed` answer computed from the request: one vector per
    /// input, [`letter_vector`] of its text.
    OllamaEmbed,
}

/// A small deterministic embedding: how often each letter group occurs.
pub fn letter_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 16];
    for c in text
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_lowercase())
    {
        v[((c as u8 - b'a') % 16) as usize] += 1.0;
    }
    v
}

impl Script {
    pub fn ndjson(lines: &[Value]) -> Script {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Script::Stream {
            content_type: "application/x-ndjson",
            pieces: vec![text.into_bytes()],
            end: End::Complete,
        }
    }
    pub fn sse(events: &[Value]) -> Script {
        let mut text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        text.push_str("data: [DONE]\n\n");
        Script::Stream {
            content_type: "text/event-stream",
            pieces: vec![text.into_bytes()],
            end: End::Complete,
        }
    }
    pub fn json(status: u16, body: Value) -> Script {
        Script::Answer {
            status,
            body: body.to_string(),
        }
    }
    /// The same stream, its bytes cut into the given pieces.
    pub fn split_at(self, cuts: &[usize]) -> Script {
        match self {
            Script::Stream {
                content_type,
                pieces,
                end,
            } => {
                let all: Vec<u8> = pieces.concat();
                let mut out = Vec::new();
                let mut last = 0;
                for &cut in cuts.iter().chain(std::iter::once(&all.len())) {
                    if cut > last && cut <= all.len() {
                        out.push(all[last..cut].to_vec());
                        last = cut;
                    }
                }
                Script::Stream {
                    content_type,
                    pieces: out,
                    end,
                }
            }
            other => other,
        }
    }
    pub fn ending(self, new_end: End) -> Script {
        match self {
            Script::Stream {
                content_type,
                pieces,
                ..
            } => Script::Stream {
                content_type,
                pieces,
                end: new_end,
            },
            other => other,
        }
    }
    pub fn bytes(&self) -> usize {
        match self {
            Script::Stream { pieces, .. } => pieces.iter().map(Vec::len).sum(),
            _ => 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

pub struct FakeServer {
    pub base: String,
    scripts: Arc<Mutex<VecDeque<(String, Script)>>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakeServer {
    pub fn start() -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let scripts: Arc<Mutex<VecDeque<(String, Script)>>> = Arc::default();
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let (s, r) = (scripts.clone(), requests.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (s, r) = (s.clone(), r.clone());
                thread::spawn(move || serve(stream, &s, &r));
            }
        });
        FakeServer {
            base,
            scripts,
            requests,
        }
    }

    /// Queues `script` as the answer to the next request for `path`.
    pub fn push(&self, path: &str, script: Script) {
        self.scripts
            .lock()
            .unwrap()
            .push_back((path.to_string(), script));
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }
}

/// An address where nothing listens.
pub fn dead_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

fn serve(
    stream: TcpStream,
    scripts: &Mutex<VecDeque<(String, Script)>>,
    requests: &Mutex<Vec<Recorded>>,
) {
    stream.set_nodelay(true).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_string());
        if name == "content-length" {
            length = value.parse().unwrap();
        }
        headers.push((name, value));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    requests.lock().unwrap().push(Recorded {
        method,
        path: path.clone(),
        headers,
        body,
    });
    let script = {
        let mut queue = scripts.lock().unwrap();
        let position = queue.iter().position(|(p, _)| *p == path);
        position.and_then(|i| queue.remove(i)).map(|(_, s)| s)
    };
    let mut out = stream;
    let mut script = script;
    while let Some(Script::Delayed(time, inner)) = script {
        thread::sleep(time);
        script = Some(*inner);
    }
    match script {
        None => answer(
            &mut out,
            500,
            &format!("{{\"error\":\"fake server: nothing scripted for {path}\"}}"),
        ),
        Some(Script::Hangup) => {}
        Some(Script::Silent(time)) => thread::sleep(time),
        Some(Script::Delayed(..)) => unreachable!("unwrapped above"),
        Some(Script::OllamaEmbed) => {
            let inputs = body_inputs(&requests.lock().unwrap().last().unwrap().body);
            let vectors: Vec<Vec<f32>> = inputs.iter().map(|t| letter_vector(t)).collect();
            answer(
                &mut out,
                200,
                &serde_json::json!({"model": "m", "embeddings": vectors}).to_string(),
            );
        }
        Some(Script::Answer { status, body }) => answer(&mut out, status, &body),
        Some(Script::Stream {
            content_type,
            pieces,
            end,
        }) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            );
            if out.write_all(head.as_bytes()).is_err() {
                return;
            }
            for piece in pieces {
                let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
                chunk.extend_from_slice(&piece);
                chunk.extend_from_slice(b"\r\n");
                if out.write_all(&chunk).and_then(|_| out.flush()).is_err() {
                    return;
                }
            }
            match end {
                End::Complete => {
                    let _ = out.write_all(b"0\r\n\r\n");
                }
                End::Cut => {}
                End::Stall(time) => thread::sleep(time),
            }
        }
    }
    let _ = out.flush();
    let _ = out.shutdown(std::net::Shutdown::Both);
}

fn body_inputs(body: &Value) -> Vec<String> {
    match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn answer(out: &mut TcpStream, status: u16, body: &str) {
    let text = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = out.write_all(text.as_bytes());
}
