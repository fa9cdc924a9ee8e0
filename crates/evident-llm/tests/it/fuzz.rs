//! Fuzzing with proptest (cargo-fuzz needs a nightly toolchain): the streaming
//! `<tool_call>` splitter, content recovery, the JSON-action and constrained
//! parsers, and the Ollama NDJSON and OpenAI SSE readers (over real HTTP),
//! fed hostile text. Nothing may panic, the splitter's result may not depend
//! on how the stream was chunked, and big inputs must stay linear.
//!
//! Cases per target: `EVIDENT_FUZZ_CASES` (256 by default; `scripts/fuzz`
//! runs many more and reports the counts).

use std::time::{Duration, Instant};

use evident_llm::{
    parse_action, parse_constrained, recover_calls, run_turn, CancelToken, ChatRequest,
    HermesSplitter, HttpOptions, Message, OllamaClient, OllamaOptions, OpenAiClient, OpenAiOptions,
    Piece, Protocol,
};
use evident_testkit::{End, FakeServer, Script};
use proptest::prelude::*;
use serde_json::json;

fn cases() -> u32 {
    std::env::var("EVIDENT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Model output at its worst: markup fragments, JSON shards, escapes, fences,
/// multibyte text, and random Unicode.
fn hostile_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        "\\PC{0,16}",
        "[ \n\t{}\\[\\]\":,\\\\<>/`]{0,8}",
        Just("<tool_call>".to_string()),
        Just("</tool_call>".to_string()),
        Just("<think>".to_string()),
        Just("</think>".to_string()),
        Just("```json\n".to_string()),
        Just("```".to_string()),
        Just("{\"name\": \"find_symbol\", \"arguments\": ".to_string()),
        Just(
            "{\"action\": \"call_tool\", \"tool\": \"read_evidence\", \"arguments\": {".to_string()
        ),
        Just("{\"action\": \"final_answer\", \"answer\": ".to_string()),
        Just("{\"tool_call\": {\"name\": \"x\", \"arguments\": {}}}".to_string()),
        Just("\"\\u00e9\\ud83d\"".to_string()),
        Just("1e400".to_string()),
        Just("ü€𝄞".to_string()),
    ];
    proptest::collection::vec(atom, 0..40).prop_map(|atoms| atoms.concat())
}

/// Pieces with neighbours of the same kind joined, so chunkings compare.
fn merged(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for piece in pieces {
        match (out.last_mut(), piece) {
            (Some(Piece::Text(a)), Piece::Text(b)) => a.push_str(&b),
            (Some(Piece::Thinking(a)), Piece::Thinking(b)) => a.push_str(&b),
            (
                Some(Piece::CallDelta { index: i, text: a }),
                Piece::CallDelta { index: j, text: b },
            ) if *i == j => a.push_str(&b),
            (_, piece) => out.push(piece),
        }
    }
    out
}

fn split(chunks: &[&str], think: bool) -> Vec<Piece> {
    let mut splitter = HermesSplitter::new(think);
    let mut pieces = Vec::new();
    for chunk in chunks {
        pieces.extend(splitter.feed(chunk));
    }
    pieces.extend(splitter.finish());
    merged(pieces)
}

proptest! {
    #![proptest_config(config(cases()))]

    #[test]
    fn splitter_any_chunking_same_result(text in hostile_text(), cuts in proptest::collection::vec(0usize..2048, 0..16), think in any::<bool>()) {
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(text.len())).filter(|&c| text.is_char_boundary(c)).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut chunks = Vec::new();
        let mut last = 0;
        for b in bounds.into_iter().chain(std::iter::once(text.len())) {
            chunks.push(&text[last..b]);
            last = b;
        }
        prop_assert_eq!(split(&chunks, think), split(&[text.as_str()], think));
    }

    #[test]
    fn recovery_and_parsers_never_panic(text in hostile_text()) {
        let known = vec!["find_symbol".to_string(), "read_evidence".to_string()];
        let recovered = recover_calls(&text, &known, 0);
        for call in &recovered.calls {
            prop_assert!(known.contains(&call.name));
        }
        let _ = parse_action(&text);
        let _ = parse_constrained(&text);
    }
}

fn http() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        first_token_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        attempts: 1,
        backoff: Duration::from_millis(1),
    }
}

/// Lines a stream may carry: real events, near-misses and garbage.
fn stream_lines(sse: bool) -> impl Strategy<Value = Vec<String>> {
    let content = "\\PC{0,12}".prop_map(move |t| {
        if sse {
            format!(
                "data: {}",
                json!({"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": null}]})
            )
        } else {
            json!({"message": {"role": "assistant", "content": t}, "done": false}).to_string()
        }
    });
    let call = Just(if sse {
        format!(
            "data: {}",
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "find_symbol", "arguments": "{\"na"}}]}, "finish_reason": null}]})
        )
    } else {
        json!({"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "find_symbol", "arguments": {"name": "x"}}}]}, "done": false}).to_string()
    });
    let line = prop_oneof![
        4 => content,
        1 => call,
        1 => "\\PC{0,40}",
        1 => Just(String::new()),
        1 => Just(if sse { "data: [DONE]".to_string() } else { json!({"done": true, "message": {"role": "assistant", "content": ""}}).to_string() }),
        1 => Just("data: {\"error\": {\"message\": \"boom\"}}".to_string()),
        1 => Just("{\"error\": \"boom\"}".to_string()),
        1 => Just(": keep-alive".to_string()),
    ];
    proptest::collection::vec(line, 0..30)
}

/// One server per target, reused by every case: a server per case would
/// run out of file descriptors long before a big run ends.
static SSE_SERVER: std::sync::OnceLock<FakeServer> = std::sync::OnceLock::new();
static NDJSON_SERVER: std::sync::OnceLock<FakeServer> = std::sync::OnceLock::new();

fn shared_server(cell: &'static std::sync::OnceLock<FakeServer>) -> &'static FakeServer {
    cell.get_or_init(FakeServer::start)
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "fuzz".into(),
        messages: vec![Message::user("q")],
        protocol: Protocol::Auto,
        ..Default::default()
    }
}

proptest! {
    // Each case is an HTTP exchange: a quarter of the count.
    #![proptest_config(config((cases() / 4).max(16)))]

    #[test]
    fn sse_reader_never_panics(lines in stream_lines(true), cut in any::<bool>(), split in 1usize..64) {
        let server = shared_server(&SSE_SERVER);
        let body: String = lines.iter().map(|l| format!("{l}\n\n")).collect();
        let bytes = body.into_bytes();
        server.push("/v1/chat/completions", Script::Stream {
            content_type: "text/event-stream",
            pieces: bytes.chunks(split).map(<[u8]>::to_vec).collect(),
            end: if cut { End::Cut } else { End::Complete },
        });
        let client = OpenAiClient::new(OpenAiOptions { base_url: Some(format!("{}/v1", server.base)), api_key: None, http: http() });
        let started = Instant::now();
        let _ = run_turn(&client, &request(), &CancelToken::new(), &mut |_| {});
        prop_assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn ndjson_reader_never_panics(lines in stream_lines(false), cut in any::<bool>(), split in 1usize..64) {
        let server = shared_server(&NDJSON_SERVER);
        server.push("/api/show", Script::json(200, json!({"model_info": {"llama.context_length": 4096}})));
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let bytes = body.into_bytes();
        server.push("/api/chat", Script::Stream {
            content_type: "application/x-ndjson",
            pieces: bytes.chunks(split).map(<[u8]>::to_vec).collect(),
            end: if cut { End::Cut } else { End::Complete },
        });
        let client = OllamaClient::new(OllamaOptions { host: Some(server.base.clone()), max_context: 4096, http: http(), ..Default::default() });
        let started = Instant::now();
        let _ = run_turn(&client, &request(), &CancelToken::new(), &mut |_| {});
        prop_assert!(started.elapsed() < Duration::from_secs(10));
    }
}

/// Big adversarial inputs stay linear: 1 MB of each shape in well under a second
/// per parser (a quadratic rescan would take minutes).
#[test]
fn big_adversarial_inputs_stay_linear() {
    let shapes = [
        "<tool_call>{".repeat(80_000),
        "<tool_call>".repeat(90_000),
        "<".repeat(1_000_000),
        "```json\n{".repeat(100_000),
        "{\"a\":".repeat(200_000),
        "\\\"".repeat(500_000),
    ];
    let known = vec!["find_symbol".to_string()];
    for text in &shapes {
        let started = Instant::now();
        let mut splitter = HermesSplitter::new(true);
        for chunk in text.as_bytes().chunks(4096) {
            splitter.feed(std::str::from_utf8(chunk).unwrap());
        }
        splitter.finish();
        let _ = recover_calls(text, &known, 0);
        let _ = parse_action(text);
        let _ = parse_constrained(text);
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(20),
            "{}...: {took:?}",
            &text[..20]
        );
    }
}
