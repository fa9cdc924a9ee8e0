//! `evident serve`'s guard and tools over real HTTP on 127.0.0.1: requests
//! are written by hand on a TCP socket, as a hostile page or a local process
//! could write them (any method, any `Host`, any token), and every hostile
//! call of the escape corpus goes through the tool endpoint.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;

use evident_agent::ToolContext;
use evident_index::{index_repo, IndexOptions};
use evident_serve::{DoorLimits, ServeOptions, Server, CONTENT_SECURITY_POLICY, TOKEN_COOKIE};
use evident_testkit::hostile_repo::{escape_corpus, hostile_repo, CANARY};

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request, written as given, on a fresh connection.
fn send(port: u16, method: &str, target: &str, headers: &[(&str, &str)]) -> Answer {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut request = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("Content-Length: 0\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// A server for `root` on a free port, answering on a thread of its own.
fn start(root: &Path) -> Arc<Server> {
    start_with(root, Err("no model in these tests".into()))
}

/// [`start`] with a model for the ask page.
fn start_with(root: &Path, ask: Result<evident_serve::AskSetup, String>) -> Arc<Server> {
    start_behind(root, ask, DoorLimits::default())
}

/// [`start_with`] with the front door's limits given.
fn start_behind(
    root: &Path,
    ask: Result<evident_serve::AskSetup, String>,
    door: DoorLimits,
) -> Arc<Server> {
    let options = ServeOptions {
        root: root.to_path_buf(),
        port: 0,
        ask,
        refresh_wait: std::time::Duration::from_secs(5),
        door,
    };
    let server = Arc::new(Server::bind(options, ToolContext::plain(root)).unwrap());
    let running = server.clone();
    std::thread::spawn(move || running.run(2));
    server
}

/// A request from the page: this server's Host and the run's cookie.
fn get(server: &Server, target: &str) -> Answer {
    let host = format!("127.0.0.1:{}", server.port());
    let cookie = format!("{TOKEN_COOKIE}={}", server.token());
    send(
        server.port(),
        "GET",
        target,
        &[("Host", &host), ("Cookie", &cookie)],
    )
}

fn tool(server: &Server, name: &str, arguments: &str) -> Answer {
    let args: String = form_urlencoded::byte_serialize(arguments.as_bytes()).collect();
    let name = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC);
    get(server, &format!("/api/tool/{name}?args={args}"))
}

#[test]
fn only_this_host_with_the_token_is_answered() {
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let server = start(&hostile.repo);
    let port = server.port();
    let host = format!("127.0.0.1:{port}");
    let cookie = format!("{TOKEN_COOKIE}={}", server.token());

    assert_eq!(get(&server, "/api/status").status, 200);
    let localhost = format!("localhost:{port}");
    let by_name = send(
        port,
        "GET",
        "/api/status",
        &[("Host", &localhost), ("Cookie", &cookie)],
    );
    assert_eq!(by_name.status, 200);

    let no_token = send(port, "GET", "/api/status", &[("Host", &host)]);
    assert_eq!(no_token.status, 403);
    assert!(no_token.body.contains("no token"), "{}", no_token.body);
    let wrong = format!("{TOKEN_COOKIE}={}", "0".repeat(32));
    let wrong_token = send(
        port,
        "GET",
        "/api/status",
        &[("Host", &host), ("Cookie", &wrong)],
    );
    assert_eq!(wrong_token.status, 403);
    assert!(wrong_token.body.contains("wrong token"));

    // DNS rebinding: a page at evil.example whose name now points here.
    let rebound = format!("evil.example:{port}");
    let rebinding = send(
        port,
        "GET",
        "/api/status",
        &[("Host", &rebound), ("Cookie", &cookie)],
    );
    assert_eq!(rebinding.status, 403);
    assert!(
        rebinding.body.contains("is not this server"),
        "{}",
        rebinding.body
    );
    let other_port = send(
        port,
        "GET",
        "/",
        &[("Host", "127.0.0.1:1"), ("Cookie", &cookie)],
    );
    assert_eq!(other_port.status, 403);
    let no_host = send(port, "GET", "/api/status", &[("Cookie", &cookie)]);
    assert_eq!(no_host.status, 403);

    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let refused = send(
            port,
            method,
            "/api/status",
            &[("Host", &host), ("Cookie", &cookie)],
        );
        assert_eq!(refused.status, 405, "{method}");
        assert_eq!(refused.header("Allow"), Some("GET, HEAD"));
    }
    server.stop();
}

#[test]
fn the_token_in_the_url_becomes_a_strict_cookie_and_leaves_the_address() {
    let hostile = hostile_repo();
    let server = start(&hostile.repo);
    let host = format!("127.0.0.1:{}", server.port());
    let first = send(
        server.port(),
        "GET",
        &format!("/?token={}", server.token()),
        &[("Host", &host)],
    );
    assert_eq!(first.status, 303);
    assert_eq!(first.header("Location"), Some("/"));
    let cookie = first.header("Set-Cookie").unwrap();
    assert!(cookie.starts_with(&format!("{TOKEN_COOKIE}={};", server.token())));
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    assert!(server
        .url()
        .ends_with(&format!("/?token={}", server.token())));
    assert_eq!(server.token().len(), 32);
    server.stop();
}

/// Every answer, refused or not, carries the policy; the page has no inline
/// script for it to allow.
#[test]
fn every_answer_carries_a_strict_content_security_policy() {
    let hostile = hostile_repo();
    let server = start(&hostile.repo);
    let host = format!("127.0.0.1:{}", server.port());
    let answers = [
        get(&server, "/"),
        get(&server, "/assets/app.js"),
        get(&server, "/nowhere"),
        send(server.port(), "GET", "/", &[("Host", &host)]),
        send(server.port(), "POST", "/", &[("Host", &host)]),
    ];
    for answer in &answers {
        assert_eq!(
            answer.header("Content-Security-Policy"),
            Some(CONTENT_SECURITY_POLICY)
        );
        assert_eq!(answer.header("X-Content-Type-Options"), Some("nosniff"));
        assert_eq!(answer.header("X-Frame-Options"), Some("DENY"));
    }
    assert!(CONTENT_SECURITY_POLICY.contains("script-src 'self'"));
    assert!(!CONTENT_SECURITY_POLICY.contains("unsafe"));
    let page = &answers[0].body;
    assert!(page.contains("<script src=\"/assets/app.js\"></script>"));
    assert_eq!(page.matches("<script").count(), 1, "no inline script");
    assert_eq!(answers[2].status, 404);
    // Assets are kept by the browser and asked for again by their ETag.
    let etag = answers[1]
        .header("ETag")
        .expect("an asset's ETag")
        .to_string();
    let cookie = format!("{TOKEN_COOKIE}={}", server.token());
    let again = send(
        server.port(),
        "GET",
        "/assets/app.js",
        &[
            ("Host", &host),
            ("Cookie", &cookie),
            ("If-None-Match", &etag),
        ],
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(
        again.header("Content-Security-Policy"),
        Some(CONTENT_SECURITY_POLICY)
    );
    assert_eq!(
        get(&server, "/api/status").header("Cache-Control"),
        Some("no-store")
    );
    server.stop();
}

/// A file's text leaves as a JSON string, never as markup the browser
/// would read.
#[test]
fn file_text_goes_out_as_json_not_html() {
    let hostile = hostile_repo();
    evident_testkit::fs::write_in(
        &hostile.repo,
        "page.py",
        "def page():\n    return \"<script>alert('x')</script><img src=x onerror=alert(1)>\"\n",
    );
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let server = start(&hostile.repo);
    let answer = tool(
        &server,
        "read_evidence",
        r#"{"path": "page.py", "start_line": 1, "end_line": 2}"#,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.header("Content-Type"),
        Some("application/json; charset=utf-8")
    );
    let value: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    let snippet = value["evidence"][0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("<script>alert('x')</script>"), "{snippet}");
    server.stop();
}

/// Every hostile call of the escape corpus, through the web's tool endpoint:
/// refused, with the agent's words, and never a forbidden file's text.
#[test]
fn the_escape_corpus_is_refused_through_the_tool_endpoint() {
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let server = start(&hostile.repo);
    let corpus = escape_corpus();
    assert!(corpus.len() >= 60);
    let mut failures = Vec::new();
    for case in &corpus {
        let answer = tool(&server, &case.tool, &hostile.expand(&case.arguments));
        if answer.body.contains(CANARY) {
            failures.push(format!("{}: leaked: {}", case.why, answer.body));
        } else if answer.status == 200 {
            failures.push(format!("{}: ran: {}", case.why, answer.body));
        } else if !answer.body.contains(&case.refused_with) {
            failures.push(format!(
                "{}: expected {:?} in: {}",
                case.why, case.refused_with, answer.body
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    server.stop();
}

/// Before answering, the server brings the index up to date the way MCP
/// does: a file written after start is found by the next request.
#[test]
fn requests_see_the_files_as_they_are_now() {
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let server = start(&hostile.repo);
    let absent = tool(&server, "find_symbol", r#"{"name": "written_later"}"#);
    assert_eq!(absent.status, 200);
    assert!(absent.body.contains("\"evidence\":[]"), "{}", absent.body);
    // A later mtime than the start-up run's stat pass saw.
    std::thread::sleep(std::time::Duration::from_millis(300));
    evident_testkit::fs::write_in(
        &hostile.repo,
        "later.py",
        "def written_later():\n    return 1\n",
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let found = tool(&server, "find_symbol", r#"{"name": "written_later"}"#);
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(found.body.contains("later.py"), "{}", found.body);
    assert_eq!(found.header("X-Evident-Stale"), None);
    server.stop();
}

/// The page's own reads go through the same sandbox as the tools: no path
/// out of the repository, no secret file, no option smuggled in as a
/// revision, and no forbidden file's text in any answer.
#[test]
fn every_endpoint_refuses_paths_out_and_secrets() {
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let server = start(&hostile.repo);
    let outside = hostile.outside.join("secret.txt");
    let outside = outside.to_str().unwrap();
    let enc = |v: &str| form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>();
    let refused = [
        format!("/api/file?path={}", enc("../outside/secret.txt")),
        format!("/api/file?path={}", enc(outside)),
        format!("/api/file?path={}", enc(".env")),
        format!("/api/file?path={}", enc("keys/deploy.key")),
        format!("/api/file?path={}", enc("docs/../../outside/secret.txt")),
        format!(
            "/api/def?path={}&line=1&col=1",
            enc("../outside/secret.txt")
        ),
        format!("/api/def?path={}&line=1&col=1", enc(".env")),
        format!("/api/outline?path={}", enc(".env")),
        format!("/api/diff?base={}", enc("--output=/tmp/evident-pwned")),
        format!("/api/diff?base={}", enc("HEAD..HEAD~1")),
    ];
    for target in &refused {
        let answer = get(&server, target);
        assert!(
            !answer.body.contains(CANARY),
            "{target} leaked: {}",
            answer.body
        );
        assert_ne!(answer.status, 200, "{target} answered: {}", answer.body);
    }
    for target in [
        format!("/api/search?q={CANARY}"),
        format!("/api/callees?symbol=main&path={}", enc("../outside")),
        format!("/api/impact?symbol=main&path={}", enc("../outside")),
    ] {
        let answer = get(&server, &target);
        assert!(
            !answer.body.contains(CANARY),
            "{target} leaked: {}",
            answer.body
        );
    }
    assert!(!std::path::Path::new("/tmp/evident-pwned").exists());
    server.stop();
}

/// The ask page's events arrive as they happen: the first step is read while
/// the model is still working on its answer (the fake model server waits two
/// seconds before it), and the answer comes last.
#[test]
fn ask_streams_each_step_as_it_happens() {
    use evident_testkit::script::{calls, say};
    use evident_testkit::{FakeServer, Script};
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let model = FakeServer::start();
    const CHAT: &str = "/v1/chat/completions";
    model.push(CHAT, calls(&[("find_symbol", r#"{"name": "helper"}"#)]));
    let slow = std::time::Duration::from_secs(2);
    model.push(
        CHAT,
        Script::Delayed(slow, Box::new(say("helper is at util.py:1."))),
    );
    let client = evident_llm::OpenAiClient::new(evident_llm::OpenAiOptions {
        base_url: Some(format!("{}/v1", model.base)),
        api_key: None,
        ..Default::default()
    });
    let setup = evident_serve::AskSetup {
        client: Box::new(client),
        model: "fake".into(),
        protocol: evident_llm::Protocol::Auto,
        limits: evident_agent::Limits {
            prefetch: false,
            ..Default::default()
        },
    };
    let server = start_with(&hostile.repo, Ok(setup));

    let started = std::time::Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let request = format!(
        "GET /api/ask?q=where+is+helper HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {TOKEN_COOKIE}={}\r\n\r\n",
        server.port(),
        server.token()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut seen = String::new();
    let mut buffer = [0u8; 4096];
    let mut first_step = None;
    loop {
        let n = stream.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
        if first_step.is_none() && seen.contains("event: step") {
            first_step = Some(started.elapsed());
        }
        if seen.contains("event: answer") {
            break;
        }
    }
    let first_step = first_step.expect("a step event");
    assert!(
        first_step < slow,
        "the first step came after {first_step:?}: {seen}"
    );
    assert!(seen.starts_with("HTTP/1.1 200 OK\r\n"), "{seen}");
    assert!(seen.contains("Content-Type: text/event-stream"), "{seen}");
    assert!(seen.contains(&format!(
        "Content-Security-Policy: {CONTENT_SECURITY_POLICY}"
    )));
    assert!(seen.contains("\"name\":\"find_symbol\""), "{seen}");
    assert!(seen.find("event: step").unwrap() < seen.find("event: answer").unwrap());
    assert!(seen.contains("util.py:1"), "{seen}");
    server.stop();
}

/// The page's status is `evident status --json`'s shape: one `Status`.
#[test]
fn the_status_answer_is_the_one_status_shape() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").unwrap();
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    let server = start(dir.path());
    let answer = get(&server, "/api/status");
    assert_eq!(answer.status, 200, "{}", answer.body);
    let page: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    let status = evident_index::Index::open(dir.path())
        .unwrap()
        .status()
        .unwrap();
    assert_eq!(page, serde_json::to_value(&status).unwrap());
    assert_eq!(page["files_by_language"][0]["lang"], "python");
    assert!(page["stale"]["modified"].as_array().unwrap().is_empty());
}

/// The search the page asks at each keystroke (a few BM25 results) and on
/// a pause (hybrid), and the map, each with its arguments checked.
#[test]
fn search_modes_limits_and_the_map_answer_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..6)
        .map(|i| format!("def parse_{i}(text):\n    return text\n\n\n"))
        .collect();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/parsers.py"), body).unwrap();
    std::fs::write(
        dir.path().join("main.py"),
        "from pkg.parsers import parse_1\n\n\ndef run():\n    return parse_1('x')\n",
    )
    .unwrap();
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    let server = start(dir.path());
    let results = |target: &str| -> (u16, usize) {
        let answer = get(&server, target);
        let value: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        (
            answer.status,
            value["evidence"].as_array().map_or(0, Vec::len),
        )
    };
    assert_eq!(results("/api/search?q=parse&mode=bm25&limit=2"), (200, 2));
    assert_eq!(results("/api/search?q=parse&mode=hybrid&limit=30").0, 200);
    for bad in ["mode=fuzzy", "limit=0", "limit=31", "limit=many"] {
        let answer = get(&server, &format!("/api/search?q=parse&{bad}"));
        assert_eq!(answer.status, 400, "{bad}: {}", answer.body);
    }
    let map = get(&server, "/api/map?level=file");
    assert_eq!(map.status, 200, "{}", map.body);
    let map: serde_json::Value = serde_json::from_str(&map.body).unwrap();
    assert_eq!(map["edges"][0]["from"], "main.py");
    assert_eq!(map["edges"][0]["to"], "pkg/parsers.py");
    let bad = get(&server, "/api/map?level=planet");
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains("unknown level"), "{}", bad.body);
    server.stop();
}

/// Reads what the server sends on `stream` until it closes it; the status.
fn status_of(stream: &mut TcpStream) -> u16 {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw);
    raw.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A head far over the limit is answered 431 while it is still being sent,
/// the server keeps no copy of it, and the next request is answered.
#[test]
fn an_oversized_head_gets_431_and_the_server_goes_on() {
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let server = start(&hostile.repo);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let padding = "a".repeat(8 * 1024 * 1024);
    let head = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: {padding}\r\n\r\n");
    // The server stops reading at its limit: a write may then fail.
    let _ = stream.write_all(head.as_bytes());
    assert_eq!(status_of(&mut stream), 431);
    let many: String = (0..500).map(|i| format!("X-{i}: 1\r\n")).collect();
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    stream
        .write_all(format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes())
        .unwrap();
    assert_eq!(status_of(&mut stream), 431);
    assert_eq!(get(&server, "/api/status").status, 200);
}

/// A head that does not end in time gets 408; past the connection cap a
/// new connection gets 503 at once; the cap frees as connections close.
#[test]
fn slow_heads_get_408_and_extra_connections_503() {
    let hostile = hostile_repo();
    index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let door = DoorLimits {
        connections: 3,
        head_time: std::time::Duration::from_millis(300),
        ..DoorLimits::default()
    };
    let server = start_behind(&hostile.repo, Err("no model".into()), door);
    let mut slow = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    assert_eq!(status_of(&mut slow), 408);

    let idle: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(("127.0.0.1", server.port())).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let mut extra = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    assert_eq!(status_of(&mut extra), 503);
    drop(idle);
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(get(&server, "/api/status").status, 200);
}
