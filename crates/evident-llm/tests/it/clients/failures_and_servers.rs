//! Failures and servers.

use super::*;

#[test]
fn a_server_that_is_not_running_says_how_to_start_it() {
    let base = dead_address();
    let client = OllamaClient::new(OllamaOptions {
        host: Some(base.clone()),
        http: fast_http(),
        ..Default::default()
    });
    let error = error_of(turn(&client, &request(Protocol::Auto)).0).error;
    assert!(
        matches!(error, LlmError::ServerNotRunning { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("ollama serve"), "{error}");
    let client = OpenAiClient::new(OpenAiOptions {
        base_url: Some(format!("{base}/v1")),
        api_key: None,
        http: fast_http(),
    });
    let error = error_of(turn(&client, &request(Protocol::Auto)).0).error;
    assert!(error.to_string().contains("llama-server"), "{error}");
}

#[test]
fn a_missing_model_says_ollama_pull() {
    let server = FakeServer::start();
    server.push(
        "/api/show",
        Script::json(404, json!({"error": "model 'qwen-test' not found"})),
    );
    let error = error_of(turn(&ollama(&server), &request(Protocol::Auto)).0).error;
    assert!(matches!(error, LlmError::ModelNotFound { .. }), "{error:?}");
    assert!(
        error.to_string().contains("ollama pull qwen-test"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1, "4xx is not retried");
}

#[test]
fn server_errors_are_retried_with_backoff_and_client_errors_are_not() {
    let server = FakeServer::start();
    server.push(
        "/v1/chat/completions",
        Script::json(503, json!({"error": {"message": "loading model"}})),
    );
    server.push("/v1/chat/completions", Script::Hangup);
    server.push(
        "/v1/chat/completions",
        Script::sse(&[
            json!({"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}),
        ]),
    );
    let client = openai(&server);
    assert_eq!(
        turn(&client, &request(Protocol::Native)).0.unwrap().content,
        "ok"
    );
    assert_eq!(server.requests().len(), 3);

    for _ in 0..3 {
        server.push(
            "/v1/chat/completions",
            Script::json(500, json!({"error": {"message": "boom"}})),
        );
    }
    let error = error_of(turn(&client, &request(Protocol::Native)).0).error;
    assert!(
        matches!(error, LlmError::Http { status: 500, ref message } if message == "boom"),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 6, "three attempts");

    server.push(
        "/v1/chat/completions",
        Script::json(400, json!({"error": {"message": "bad request"}})),
    );
    let error = error_of(turn(&client, &request(Protocol::Native)).0).error;
    assert!(
        matches!(error, LlmError::Http { status: 400, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 7, "a 4xx is final");
}

#[test]
fn context_overflow_is_named() {
    let server = FakeServer::start();
    server.push(
        "/v1/chat/completions",
        Script::json(400, json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error"}})),
    );
    let error = error_of(turn(&openai(&server), &request(Protocol::Native)).0).error;
    assert!(
        matches!(error, LlmError::ContextOverflow { .. }),
        "{error:?}"
    );
}

#[test]
fn a_stream_cut_midway_keeps_what_arrived() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    let cut = Script::ndjson(&[
        json!({"message": {"role": "assistant", "content": "The function is "}, "done": false}),
        json!({"message": {"role": "assistant", "content": "defined in"}, "done": false}),
    ])
    .ending(End::Cut);
    server.push("/api/chat", cut);
    let error = error_of(turn(&ollama(&server), &request(Protocol::Native)).0);
    assert!(
        matches!(error.error, LlmError::StreamCut { lines: 2, .. }),
        "{:?}",
        error.error
    );
    assert_eq!(error.partial.content, "The function is defined in");

    // SSE: the body breaks off (no [DONE], no chunked terminator).
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial\"},\"finish_reason\":null}]}\n\n";
    server.push(
        "/v1/chat/completions",
        Script::Stream {
            content_type: "text/event-stream",
            pieces: vec![body.as_bytes().to_vec()],
            end: End::Cut,
        },
    );
    let error = error_of(turn(&openai(&server), &request(Protocol::Native)).0);
    assert!(
        matches!(error.error, LlmError::StreamCut { .. }),
        "{:?}",
        error.error
    );
    assert_eq!(error.partial.content, "partial");
}

#[test]
fn sse_without_done_marker_is_cut_unless_finished() {
    let server = FakeServer::start();
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"},\"finish_reason\":null}]}\n\n";
    server.push(
        "/v1/chat/completions",
        Script::Stream {
            content_type: "text/event-stream",
            pieces: vec![body.as_bytes().to_vec()],
            end: End::Complete,
        },
    );
    let error = error_of(turn(&openai(&server), &request(Protocol::Native)).0);
    assert!(
        matches!(error.error, LlmError::StreamCut { .. }),
        "{:?}",
        error.error
    );
    assert_eq!(error.partial.content, "half");
}

#[test]
fn a_stalled_stream_times_out_and_cancel_is_immediate() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    let stalled = Script::ndjson(&[
        json!({"message": {"role": "assistant", "content": "Thinking"}, "done": false}),
    ])
    .ending(End::Stall(Duration::from_secs(5)));
    server.push("/api/chat", stalled.clone());
    let mut http = fast_http();
    http.idle_timeout = Duration::from_millis(300);
    let client = OllamaClient::new(OllamaOptions {
        host: Some(server.base.clone()),
        http,
        ..Default::default()
    });
    let started = Instant::now();
    let error = error_of(turn(&client, &request(Protocol::Native)).0);
    assert!(
        matches!(
            error.error,
            LlmError::Timeout {
                phase: TimeoutPhase::Idle,
                ..
            }
        ),
        "{:?}",
        error.error
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(error.partial.content, "Thinking");

    server.push("/api/chat", stalled);
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        trigger.cancel();
    });
    let started = Instant::now();
    let client = ollama(&server);
    let error = run_turn(&client, &request(Protocol::Native), &cancel, &mut |_| {}).unwrap_err();
    assert!(
        matches!(error.error, LlmError::Cancelled),
        "{:?}",
        error.error
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn garbage_lines_and_mid_stream_errors_are_reported() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    server.push(
        "/api/chat",
        Script::Stream {
            content_type: "application/x-ndjson",
            pieces: vec![b"{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"done\":false}\n<html>502 Bad Gateway</html>\n".to_vec()],
            end: End::Complete,
        },
    );
    let error = error_of(turn(&ollama(&server), &request(Protocol::Native)).0);
    match &error.error {
        LlmError::InvalidStream { line, excerpt, .. } => assert_eq!(
            (*line, excerpt.as_str()),
            (2, "<html>502 Bad Gateway</html>")
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(error.partial.content, "ok");

    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"message": {"role": "assistant", "content": " Yes"}, "done": false}),
            json!({"error": "an error was encountered while running the model"}),
        ]),
    );
    let error = error_of(turn(&ollama(&server), &request(Protocol::Native)).0);
    assert!(
        matches!(error.error, LlmError::Server { ref message } if message.contains("while running the model"))
    );
}

#[test]
fn embeddings_from_both_servers() {
    let server = FakeServer::start();
    server.push(
        "/api/embed",
        Script::json(
            200,
            json!({"model": "m", "embeddings": [[0.1, 0.2], [0.3, 0.4]]}),
        ),
    );
    let inputs = vec!["a".to_string(), "b".to_string()];
    let vectors = ollama(&server).embed("m", &inputs).unwrap();
    assert_eq!(vectors, vec![vec![0.1f32, 0.2], vec![0.3, 0.4]]);
    assert_eq!(
        server.requests_to("/api/embed")[0].body,
        json!({"model": "m", "input": ["a", "b"]})
    );

    server.push(
        "/v1/embeddings",
        Script::json(200, json!({"object": "list", "data": [{"object": "embedding", "index": 1, "embedding": [0.3, 0.4]}, {"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}]})),
    );
    assert_eq!(
        openai(&server).embed("m", &inputs).unwrap(),
        vec![vec![0.1f32, 0.2], vec![0.3, 0.4]]
    );
    server.push(
        "/v1/embeddings",
        Script::json(200, json!({"data": [{"index": 0, "embedding": [0.1]}]})),
    );
    assert!(matches!(
        openai(&server).embed("m", &inputs),
        Err(LlmError::InvalidStream { .. })
    ));
}

#[test]
fn ollama_host_forms() {
    assert_eq!(evident_llm::normalize_host(""), "http://127.0.0.1:11434");
    assert_eq!(
        evident_llm::normalize_host("0.0.0.0"),
        "http://127.0.0.1:11434"
    );
    assert_eq!(
        evident_llm::normalize_host("example.lan:1234"),
        "http://example.lan:1234"
    );
    assert_eq!(
        evident_llm::normalize_host("https://ollama.internal/"),
        "https://ollama.internal:11434"
    );
    assert_eq!(
        evident_llm::normalize_host("http://127.0.0.1:9999"),
        "http://127.0.0.1:9999"
    );
}

#[test]
fn native_protocol_streams_json_looking_answers_at_once() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"message": {"role": "assistant", "content": "{\"name\": \"find_symbol\", "}, "done": false}),
            json!({"message": {"role": "assistant", "content": "\"arguments\": {}}"}, "done": true}),
        ]),
    );
    let (reply, events) = turn(&ollama(&server), &request(Protocol::Native));
    let reply = reply.unwrap();
    assert!(
        matches!(&events[0], Event::Content(t) if t == "{\"name\": \"find_symbol\", "),
        "{events:?}"
    );
    assert!(
        reply.tool_calls.is_empty(),
        "native reads no calls from text"
    );
    assert_eq!(
        reply.content,
        "{\"name\": \"find_symbol\", \"arguments\": {}}"
    );
}

#[test]
fn streamed_call_events_match_the_reply() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    let text = "```json\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"Index\"}}\n```";
    server.push(
        "/api/chat",
        Script::ndjson(&[json!({"message": {"role": "assistant", "content": text}, "done": true})]),
    );
    let (reply, events) = turn(&ollama(&server), &request(Protocol::Auto));
    let reply = reply.unwrap();
    let streamed: Vec<_> = events
        .iter()
        .filter_map(|e| {
            if let Event::Call(c) = e {
                Some(c.clone())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        streamed, reply.tool_calls,
        "a consumer of events sees the same calls, ids included"
    );
    assert!(
        reply.tool_calls[0].id.is_some(),
        "auto gives recovered calls an id for the native history"
    );
}

#[test]
fn a_server_that_never_starts_answering_hits_the_first_token_timeout() {
    let server = FakeServer::start();
    server.push(
        "/v1/chat/completions",
        Script::Silent(Duration::from_secs(5)),
    );
    let mut http = fast_http();
    http.first_token_timeout = Duration::from_millis(400);
    let client = OpenAiClient::new(OpenAiOptions {
        base_url: Some(format!("{}/v1", server.base)),
        api_key: None,
        http,
    });
    let started = Instant::now();
    let error = error_of(turn(&client, &request(Protocol::Native)).0).error;
    assert!(
        matches!(
            error,
            LlmError::Timeout {
                phase: TimeoutPhase::FirstToken,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(
        error.to_string().contains("waiting for the first token"),
        "{error}"
    );
}
