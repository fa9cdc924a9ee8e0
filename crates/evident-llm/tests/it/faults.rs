//! A model server that misbehaves (beyond the cases in `clients.rs`): 5xx with
//! and without bodies, streams cut mid-character and mid-JSON, a reply that
//! never stops, one endless line, and a tool call with 10,000 arguments. Each
//! gives a clear error (after bounded retries where retrying can help), keeps
//! what arrived, and nothing panics.

use std::time::{Duration, Instant};

use evident_llm::{
    run_turn, CancelToken, ChatRequest, HttpOptions, LlmError, Message, OllamaClient,
    OllamaOptions, OpenAiClient, OpenAiOptions, Protocol, Reply, TurnError,
};
use evident_testkit::{End, FakeServer, Script};
use serde_json::json;

const CHAT: &str = "/v1/chat/completions";

fn http() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        first_token_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(10),
        attempts: 3,
        backoff: Duration::from_millis(10),
    }
}

fn openai(server: &FakeServer) -> OpenAiClient {
    OpenAiClient::new(OpenAiOptions {
        base_url: Some(format!("{}/v1", server.base)),
        api_key: None,
        http: http(),
    })
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "qwen-test".into(),
        messages: vec![Message::user("Where is get_collection_name?")],
        protocol: Protocol::Native,
        ..Default::default()
    }
}

fn turn(client: &dyn evident_llm::ChatClient) -> Result<Reply, TurnError> {
    run_turn(client, &request(), &CancelToken::new(), &mut |_| {})
}

fn sse_bytes(contents: &[&str]) -> Vec<u8> {
    contents
        .iter()
        .map(|c| {
            let event =
                json!({"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": null}]});
            format!("data: {event}\n\n")
        })
        .collect::<String>()
        .into_bytes()
}

/// A complete SSE body sent in 1 MiB pieces.
fn sse_in_megabytes(bytes: &[u8]) -> Script {
    Script::Stream {
        content_type: "text/event-stream",
        pieces: bytes.chunks(1 << 20).map(<[u8]>::to_vec).collect(),
        end: End::Complete,
    }
}

#[test]
fn server_errors_with_and_without_bodies_are_named_after_bounded_retries() {
    let cases = [
        (500, "", "no details (the body was empty)"),
        (503, "", "no details (the body was empty)"),
        (
            500,
            "<html><body><h1>Internal Server Error</h1></body></html>",
            "<html><body><h1>Internal Server Error",
        ),
        (
            503,
            r#"{"error": {"message": "model is loading"}}"#,
            "model is loading",
        ),
        (502, r#"{"error": "upstream gone"}"#, "upstream gone"),
    ];
    for (status, body, expected) in cases {
        let server = FakeServer::start();
        for _ in 0..3 {
            server.push(
                CHAT,
                Script::Answer {
                    status,
                    body: body.to_string(),
                },
            );
        }
        let error = turn(&openai(&server)).unwrap_err().error;
        match &error {
            LlmError::Http {
                status: got,
                message,
            } => {
                assert_eq!(*got, status);
                assert!(message.contains(expected), "{status} {body:?}: {message}");
            }
            other => panic!("{status} {body:?}: {other:?}"),
        }
        assert!(error
            .to_string()
            .starts_with(&format!("the server answered HTTP {status}")));
        assert_eq!(
            server.requests().len(),
            3,
            "{status}: three attempts, no more"
        );
    }
}

#[test]
fn a_stream_cut_mid_character_keeps_the_whole_messages_before_it() {
    let server = FakeServer::start();
    let mut bytes = sse_bytes(&["The café ", "is open"]);
    // A third event cut inside the two bytes of "é".
    let third = sse_bytes(&["résumé"]);
    let cut_at = third.windows(2).position(|w| w == "é".as_bytes()).unwrap() + 1;
    bytes.extend_from_slice(&third[..cut_at]);
    server.push(
        CHAT,
        Script::Stream {
            content_type: "text/event-stream",
            pieces: vec![bytes],
            end: End::Cut,
        },
    );
    let error = turn(&openai(&server)).unwrap_err();
    assert!(
        matches!(error.error, LlmError::StreamCut { .. }),
        "{:?}",
        error.error
    );
    assert_eq!(error.partial.content, "The café is open");
}

#[test]
fn a_stream_cut_mid_json_keeps_the_whole_messages_before_it() {
    let server = FakeServer::start();
    server.push(
        "/api/show",
        Script::json(200, json!({"model_info": {"qwen2.context_length": 4096}})),
    );
    let mut text = String::new();
    text.push_str(&format!(
        "{}\n",
        json!({"message": {"role": "assistant", "content": "defined in "}, "done": false})
    ));
    text.push_str(&format!(
        "{}\n",
        json!({"message": {"role": "assistant", "content": "rag_common.py"}, "done": false})
    ));
    text.push_str(r#"{"message": {"role": "assistant", "content": ", line"#);
    server.push(
        "/api/chat",
        Script::Stream {
            content_type: "application/x-ndjson",
            pieces: vec![text.into_bytes()],
            end: End::Cut,
        },
    );
    let client = OllamaClient::new(OllamaOptions {
        host: Some(server.base.clone()),
        max_context: 8192,
        http: http(),
        ..Default::default()
    });
    let error = turn(&client).unwrap_err();
    assert!(
        matches!(
            error.error,
            LlmError::StreamCut { .. } | LlmError::InvalidStream { .. }
        ),
        "{:?}",
        error.error
    );
    assert_eq!(error.partial.content, "defined in rag_common.py");
}

#[test]
fn a_reply_that_never_stops_is_cut_at_the_limit() {
    // 50 MB of answer, in 1 KB pieces.
    let server = FakeServer::start();
    let piece = "x".repeat(1024);
    let bytes = sse_bytes(&vec![piece.as_str(); 50 * 1024]);
    assert!(bytes.len() > 50_000_000);
    server.push(CHAT, sse_in_megabytes(&bytes));
    let started = Instant::now();
    let error = turn(&openai(&server)).unwrap_err();
    match &error.error {
        LlmError::TooLarge { what, limit } => {
            assert_eq!(*what, "the whole reply");
            assert_eq!(*limit, 32 * 1024 * 1024);
        }
        other => panic!("{other:?}"),
    }
    assert!(error
        .error
        .to_string()
        .contains("it was cut there and what arrived is kept"));
    // What arrived up to the limit is kept, and no more.
    assert!(
        error.partial.content.len() > 20_000_000,
        "{}",
        error.partial.content.len()
    );
    assert!(error.partial.content.len() <= 32 * 1024 * 1024);
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_reply_that_loops_is_stopped_and_cut_to_one_copy() {
    // What small models at temperature 0 do: one sentence until the reply limit.
    let server = FakeServer::start();
    let sentence = "It is imported by ingest.py and query.py. ";
    let mut pieces = vec!["`get_collection_name` is defined in rag_common.py:4. "];
    pieces.extend(std::iter::repeat_n(sentence, 20_000));
    server.push(CHAT, sse_in_megabytes(&sse_bytes(&pieces)));
    let mut shown = 0;
    let reply = run_turn(
        &openai(&server),
        &request(),
        &CancelToken::new(),
        &mut |event| {
            if matches!(event, evident_llm::Event::Content(_)) {
                shown += 1;
            }
        },
    )
    .unwrap();
    assert!(reply.cut_looping);
    assert!(
        reply
            .content
            .starts_with("`get_collection_name` is defined in rag_common.py:4. It is imported by"),
        "{}",
        reply.content
    );
    assert_eq!(
        reply.content.matches("It is imported by").count(),
        1,
        "{}",
        reply.content
    );
    assert_eq!(reply.raw, reply.content);
    // Stopped after a few copies, not after 20,000.
    assert!(shown < 20, "{shown} pieces shown");

    // An answer that does not loop is left alone.
    let mut complete = sse_bytes(&["It is defined ", "in rag_common.py:4."]);
    complete.extend_from_slice(b"data: [DONE]\n\n");
    server.push(CHAT, sse_in_megabytes(&complete));
    let reply = turn(&openai(&server)).unwrap();
    assert!(!reply.cut_looping);
    assert_eq!(reply.content, "It is defined in rag_common.py:4.");
}

#[test]
fn one_endless_line_is_cut_at_the_line_limit() {
    let server = FakeServer::start();
    let mut bytes = sse_bytes(&["before "]);
    bytes.extend_from_slice(b"data: ");
    bytes.extend(std::iter::repeat_n(b'y', 20 * 1024 * 1024));
    server.push(CHAT, sse_in_megabytes(&bytes));
    let error = turn(&openai(&server)).unwrap_err();
    assert!(
        matches!(
            error.error,
            LlmError::TooLarge {
                what: "one line of the stream",
                ..
            }
        ),
        "{:?}",
        error.error
    );
    assert_eq!(error.partial.content, "before ");
}

#[test]
fn a_tool_call_with_ten_thousand_arguments_is_read_whole() {
    // Reading it is the client's job (the agent's validator refuses it: see
    // evident-agent's escape tests).
    let server = FakeServer::start();
    let arguments: serde_json::Map<String, serde_json::Value> =
        (0..10_000).map(|i| (format!("k{i}"), json!(i))).collect();
    let arguments = serde_json::Value::Object(arguments).to_string();
    server.push(
        CHAT,
        Script::sse(&[
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                {"index": 0, "id": "call_0", "type": "function",
                 "function": {"name": "find_symbol", "arguments": arguments}}]}, "finish_reason": null}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ]),
    );
    let started = Instant::now();
    let reply = turn(&openai(&server)).unwrap();
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(
        reply.tool_calls[0].arguments.as_object().unwrap().len(),
        10_000
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
