//! The door in front of the HTTP server. `tiny_http` reads a request's head
//! without a limit and before anything checks it: four local connections
//! each sending a 64 MiB header took the server from 90 to 411 MiB. Every
//! connection is accepted here first, at most [`DoorLimits::connections`] at
//! once (503 past that), and each request head is read under a size, line
//! and time limit (431, 408). Only heads within them go on, over a Unix
//! socket in a directory only this user can open, to the server behind; its
//! answers come back unchanged.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one connection may send and hold.
#[derive(Debug, Clone)]
pub struct DoorLimits {
    /// The most bytes of one request's head (request line and headers):
    /// room for the longest search query the page may send, percent-encoded.
    pub head_bytes: usize,
    /// The most header lines of one request.
    pub headers: usize,
    /// The most bytes of one request's body (the page sends none).
    pub body_bytes: usize,
    /// Connections open at once.
    pub connections: usize,
    /// From a request's first byte to the end of its head.
    pub head_time: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_time: Duration,
}

impl Default for DoorLimits {
    fn default() -> DoorLimits {
        DoorLimits {
            head_bytes: 64 * 1024,
            headers: 100,
            body_bytes: 64 * 1024,
            connections: 64,
            head_time: Duration::from_secs(10),
            idle_time: Duration::from_secs(60),
        }
    }
}

/// The public listener and the way to the server behind it.
pub(crate) struct Front {
    listener: TcpListener,
    behind: PathBuf,
    limits: DoorLimits,
    open: Arc<AtomicUsize>,
    stopping: AtomicBool,
}

/// Why a request went no further.
enum Refused {
    /// 408, 413, 431 or 400, with the reason.
    Status(u16, &'static str),
    /// The connection ended or failed: nothing to say.
    Gone,
}

impl Front {
    pub(crate) fn bind(port: u16, behind: PathBuf, limits: DoorLimits) -> io::Result<Front> {
        Ok(Front {
            listener: TcpListener::bind(("127.0.0.1", port))?,
            behind,
            limits,
            open: Arc::new(AtomicUsize::new(0)),
            stopping: AtomicBool::new(false),
        })
    }

    pub(crate) fn port(&self) -> io::Result<u16> {
        Ok(self.listener.local_addr()?.port())
    }

    /// Accepts connections until [`Front::stop`], each on a thread of its own.
    pub(crate) fn run(&self) {
        for client in self.listener.incoming() {
            if self.stopping.load(Ordering::SeqCst) {
                return;
            }
            let Ok(mut client) = client else { continue };
            // Answers are copied on as the server writes them (head, then
            // body): without this, Nagle's algorithm holds the second write
            // until the browser's delayed ACK, 40 ms later, on a kept-alive
            // connection.
            let _ = client.set_nodelay(true);
            if self.open.fetch_add(1, Ordering::SeqCst) >= self.limits.connections {
                self.open.fetch_sub(1, Ordering::SeqCst);
                let _ = client.write_all(&refusal(503, "too many connections"));
                continue;
            }
            let (behind, limits, open) =
                (self.behind.clone(), self.limits.clone(), self.open.clone());
            std::thread::spawn(move || {
                pass_requests(client, &behind, &limits);
                open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }

    pub(crate) fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        if let Ok(port) = self.port() {
            // Wakes the accept loop so it sees the flag.
            let _ = TcpStream::connect(("127.0.0.1", port));
        }
    }
}

/// Passes `client`'s requests to the server behind while they are within
/// `limits`, and the server's answers back; a request out of them is
/// answered here, after the answers in flight, and the connection closed.
/// The server is reached only once a first request is whole, so a refused
/// one never involves it.
fn pass_requests(client: TcpStream, behind: &PathBuf, limits: &DoorLimits) {
    let mut reader = Heads::new(client, limits);
    let mut passing: Option<(UnixStream, std::thread::JoinHandle<io::Result<()>>)> = None;
    let refused = loop {
        let request = match reader.next_request() {
            Ok(request) => request,
            Err(Refused::Gone) => break None,
            Err(Refused::Status(status, why)) => break Some((status, why)),
        };
        if passing.is_none() {
            match connect_behind(behind, &reader.client) {
                Ok(connected) => passing = Some(connected),
                Err(_) => break Some((503, "the server is not answering")),
            }
        }
        let Some((server, _)) = passing.as_mut() else {
            break None;
        };
        if server.write_all(&request).is_err() {
            break None;
        }
    };
    let mut client = reader.into_inner();
    if let Some((server, answers)) = passing {
        let _ = server.shutdown(Shutdown::Write);
        // The answers in flight go first, for as long as they take to come.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !answers.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    if let Some((status, why)) = refused {
        let _ = client.write_all(&refusal(status, why));
        let _ = client.shutdown(Shutdown::Write);
        drain(&mut client);
    }
    let _ = client.shutdown(Shutdown::Both);
}

/// A connection to the server behind, and the thread that copies its
/// answers to `client`.
fn connect_behind(
    behind: &PathBuf,
    client: &TcpStream,
) -> io::Result<(UnixStream, std::thread::JoinHandle<io::Result<()>>)> {
    let server = UnixStream::connect(behind)?;
    let (from_server, to_client) = (server.try_clone()?, client.try_clone()?);
    let answers = std::thread::spawn(move || copy_answers(from_server, to_client));
    Ok((server, answers))
}

/// Reads and drops what the client still sends, for a moment: closing a
/// socket with unread bytes resets it, and the client would lose the
/// refusal it has not read yet.
fn drain(client: &mut TcpStream) {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut scratch = [0u8; 16 * 1024];
    while let Some(left) = deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
    {
        if client.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match client.read(&mut scratch) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// The server's answers to the client, until the server closes the
/// connection; then the reading of requests stops too.
fn copy_answers(mut from: UnixStream, mut to: TcpStream) -> io::Result<()> {
    let copied = io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Read);
    copied.map(|_| ())
}

/// A client's bytes, cut into whole requests.
struct Heads<'l> {
    client: TcpStream,
    limits: &'l DoorLimits,
    /// Read but not yet passed on (the start of the next request).
    pending: Vec<u8>,
}

impl<'l> Heads<'l> {
    fn new(client: TcpStream, limits: &'l DoorLimits) -> Heads<'l> {
        Heads {
            client,
            limits,
            pending: Vec::new(),
        }
    }

    fn into_inner(self) -> TcpStream {
        self.client
    }

    /// The next request, head and body, within the limits.
    fn next_request(&mut self) -> Result<Vec<u8>, Refused> {
        if self.pending.is_empty() && !self.fill(Instant::now() + self.limits.idle_time)? {
            return Err(Refused::Gone);
        }
        let deadline = Instant::now() + self.limits.head_time;
        let head_end = loop {
            if let Some(at) = find(&self.pending, b"\r\n\r\n") {
                break at + 4;
            }
            if self.pending.len() > self.limits.head_bytes {
                return Err(Refused::Status(431, "the request's head is too large"));
            }
            if !self.fill(deadline)? {
                return Err(Refused::Gone);
            }
        };
        if head_end > self.limits.head_bytes {
            return Err(Refused::Status(431, "the request's head is too large"));
        }
        let body = self.body_length(&self.pending[..head_end])?;
        while self.pending.len() < head_end + body {
            if !self.fill(deadline)? {
                return Err(Refused::Gone);
            }
        }
        let rest = self.pending.split_off(head_end + body);
        Ok(std::mem::replace(&mut self.pending, rest))
    }

    /// The body's length the head declares, within the limits.
    fn body_length(&self, head: &[u8]) -> Result<usize, Refused> {
        let text = String::from_utf8_lossy(head);
        let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
        if lines.len() > self.limits.headers + 1 {
            return Err(Refused::Status(431, "the request has too many headers"));
        }
        let mut length = 0;
        for line in &lines[1.min(lines.len())..] {
            let Some((name, value)) = line.split_once(':') else {
                return Err(Refused::Status(400, "a header line has no colon"));
            };
            if name.trim().eq_ignore_ascii_case("transfer-encoding") {
                return Err(Refused::Status(
                    400,
                    "chunked request bodies are not accepted",
                ));
            }
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| Refused::Status(400, "Content-Length is not a number"))?;
            }
        }
        if length > self.limits.body_bytes {
            return Err(Refused::Status(413, "the request's body is too large"));
        }
        Ok(length)
    }

    /// Reads more into `pending` before `deadline`; `false` at the end of
    /// the connection.
    fn fill(&mut self, deadline: Instant) -> Result<bool, Refused> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timed_out());
        }
        self.client
            .set_read_timeout(Some(left))
            .map_err(|_| Refused::Gone)?;
        let mut buffer = [0u8; 8192];
        match self.client.read(&mut buffer) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.pending.extend_from_slice(&buffer[..n]);
                Ok(true)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Err(self.timed_out())
            }
            Err(_) => Err(Refused::Gone),
        }
    }

    /// Idle between requests: close quietly; inside one: 408.
    fn timed_out(&self) -> Refused {
        if self.pending.is_empty() {
            Refused::Gone
        } else {
            Refused::Status(408, "the request's head took too long")
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn refusal(status: u16, why: &str) -> Vec<u8> {
    let reason = match status {
        400 => "Bad Request",
        408 => "Request Timeout",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        _ => "Service Unavailable",
    };
    let body = format!("{{\"error\":\"{why}\"}}");
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
