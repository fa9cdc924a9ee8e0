//! Both clients against a real HTTP server that speaks the exact wire formats.

use std::time::{Duration, Instant};

use evident_llm::{
    run_turn, CancelToken, ChatClient, ChatRequest, Event, HttpOptions, LlmError, Message,
    OllamaClient, OllamaOptions, OpenAiClient, OpenAiOptions, Protocol, Reply, TimeoutPhase,
    ToolSchema, TurnError,
};
use evident_testkit::{dead_address, End, FakeServer, Script};
use serde_json::{json, Value};

fn fast_http() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        first_token_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        attempts: 3,
        backoff: Duration::from_millis(10),
    }
}

fn ollama(server: &FakeServer) -> OllamaClient {
    OllamaClient::new(OllamaOptions {
        host: Some(server.base.clone()),
        max_context: 8192,
        http: fast_http(),
        ..Default::default()
    })
}

fn openai(server: &FakeServer) -> OpenAiClient {
    OpenAiClient::new(OpenAiOptions {
        base_url: Some(format!("{}/v1", server.base)),
        api_key: Some("sk-test".into()),
        http: fast_http(),
    })
}

fn tools() -> Vec<ToolSchema> {
    vec![ToolSchema {
        name: "find_symbol".into(),
        description: "Find definitions by name.".into(),
        parameters: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    }]
}

fn request(protocol: Protocol) -> ChatRequest {
    ChatRequest {
        model: "qwen-test".into(),
        messages: vec![
            Message::system("You answer questions about code."),
            Message::user("Where is get_collection_name?"),
        ],
        tools: tools(),
        protocol,
        ..Default::default()
    }
}

fn turn(client: &dyn ChatClient, request: &ChatRequest) -> (Result<Reply, TurnError>, Vec<Event>) {
    let mut events = Vec::new();
    let result = run_turn(client, request, &CancelToken::new(), &mut |e| {
        events.push(e)
    });
    (result, events)
}

fn show(context: u64) -> Script {
    Script::json(
        200,
        json!({"model_info": {"general.architecture": "qwen2", "qwen2.context_length": context}}),
    )
}

fn ollama_tool_stream() -> Script {
    Script::ndjson(&[
        json!({"model": "qwen-test", "created_at": "2026-11-29T17:00:00Z", "message": {"role": "assistant", "content": "Let me "}, "done": false}),
        json!({"model": "qwen-test", "created_at": "2026-11-29T17:00:00Z", "message": {"role": "assistant", "content": "look."}, "done": false}),
        json!({"model": "qwen-test", "created_at": "2026-11-29T17:00:00Z", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "find_symbol", "arguments": {"name": "get_collection_name"}}}]}, "done": false}),
        json!({"model": "qwen-test", "created_at": "2026-11-29T17:00:01Z", "message": {"role": "assistant", "content": ""}, "done_reason": "stop", "done": true, "total_duration": 182242375u64, "load_duration": 41295167, "prompt_eval_count": 169, "prompt_eval_duration": 24573166, "eval_count": 15, "eval_duration": 115959084}),
    ])
}

#[test]
fn ollama_native_tool_call_streams_and_sends_what_ollama_expects() {
    let server = FakeServer::start();
    server.push("/api/show", show(32768));
    server.push("/api/chat", ollama_tool_stream());
    let client = ollama(&server);
    let (reply, events) = turn(&client, &request(Protocol::Auto));
    let reply = reply.unwrap();
    assert_eq!(reply.content, "Let me look.");
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].name, "find_symbol");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"name": "get_collection_name"})
    );
    assert_eq!(reply.usage.prompt_tokens, Some(169));
    assert_eq!(reply.usage.completion_tokens, Some(15));
    assert_eq!(reply.usage.eval_ms, Some(115));
    assert!(
        matches!(events[0], Event::Content(ref t) if t == "Let me "),
        "content streams as it comes: {events:?}"
    );
    assert!(matches!(events.last(), Some(Event::Done(_))));

    let sent = &server.requests_to("/api/chat")[0].body;
    assert_eq!(sent["stream"], true);
    assert_eq!(
        sent["options"]["num_ctx"], 8192,
        "the model's 32768 capped at max_context"
    );
    assert_eq!(sent["keep_alive"], "5m");
    assert_eq!(sent["tools"][0]["type"], "function");
    assert_eq!(sent["tools"][0]["function"]["name"], "find_symbol");
    assert!(sent.get("format").is_none());

    // The result goes back as role tool with tool_name, after the assistant's calls.
    let protocol = Protocol::Auto;
    let mut next = request(protocol);
    next.messages.push(protocol.assistant_message(&reply));
    next.messages.push(
        protocol.tool_result_message(&reply.tool_calls[0], "src/db.py:12 def get_collection_name"),
    );
    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"message": {"role": "assistant", "content": "In src/db.py:12."}, "done": true}),
        ]),
    );
    let (second, _) = turn(&client, &next);
    assert_eq!(second.unwrap().content, "In src/db.py:12.");
    let sent = &server.requests_to("/api/chat")[1].body;
    let messages = sent["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        json!({"name": "get_collection_name"})
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_name"], "find_symbol");
    assert_eq!(
        server.requests_to("/api/show").len(),
        1,
        "the context length is asked once per model"
    );
}

#[test]
fn ollama_stream_split_at_every_byte_gives_the_same_reply() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    let client = ollama(&server);
    let whole = ollama_tool_stream();
    server.push("/api/chat", whole.clone());
    let expected = turn(&client, &request(Protocol::Auto)).0.unwrap();
    for cut in 1..whole.bytes() {
        server.push("/api/chat", whole.clone().split_at(&[cut]));
        let reply = turn(&client, &request(Protocol::Auto)).0.unwrap();
        assert_eq!(reply.content, expected.content, "cut at {cut}");
        assert_eq!(reply.tool_calls.len(), 1, "cut at {cut}");
        assert_eq!(
            reply.tool_calls[0].arguments,
            expected.tool_calls[0].arguments
        );
    }
    // And one byte per write.
    let cuts: Vec<usize> = (1..whole.bytes()).collect();
    server.push("/api/chat", whole.split_at(&cuts));
    assert_eq!(
        turn(&client, &request(Protocol::Auto))
            .0
            .unwrap()
            .tool_calls
            .len(),
        1
    );
}

#[test]
fn ollama_thinking_is_kept_apart() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"message": {"role": "assistant", "content": "", "thinking": "The user wants "}, "done": false}),
            json!({"message": {"role": "assistant", "content": "", "thinking": "a location."}, "done": false}),
            json!({"message": {"role": "assistant", "content": "It is in db.py."}, "done": true, "done_reason": "stop"}),
        ]),
    );
    let mut req = request(Protocol::Native);
    req.think = Some(true);
    let reply = turn(&ollama(&server), &req).0.unwrap();
    assert_eq!(reply.thinking, "The user wants a location.");
    assert_eq!(reply.content, "It is in db.py.");
    assert_eq!(server.requests_to("/api/chat")[0].body["think"], true);
}

fn openai_tool_stream() -> Script {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "qwen-test",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    Script::sse(&[
        chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_abc", "type": "function", "function": {"name": "find_symbol", "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"na"}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "me\": \"get_collection_name\"}"}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_def", "type": "function", "function": {"name": "find_symbol", "arguments": "{\"name\": \"Index\"}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 200, "completion_tokens": 30, "total_tokens": 230}}),
    ])
}

#[test]
fn openai_tool_call_deltas_are_assembled_by_index() {
    let server = FakeServer::start();
    server.push("/v1/chat/completions", openai_tool_stream());
    let client = openai(&server);
    let (reply, events) = turn(&client, &request(Protocol::Auto));
    let reply = reply.unwrap();
    let calls: Vec<(&str, &str, Value)> = reply
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.id.as_deref().unwrap(),
                c.name.as_str(),
                c.arguments.clone(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "call_abc",
                "find_symbol",
                json!({"name": "get_collection_name"})
            ),
            ("call_def", "find_symbol", json!({"name": "Index"}))
        ]
    );
    assert_eq!(
        reply.tool_calls[0].arguments_raw,
        "{\"name\": \"get_collection_name\"}"
    );
    assert_eq!(reply.usage.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(reply.usage.prompt_tokens, Some(200));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::CallStarted { index: 0 })),
        "a call in progress is reported"
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::CallDelta { index: 0, text } if text == "{\"na")));

    let sent = &server.requests_to("/v1/chat/completions")[0];
    assert!(sent
        .headers
        .iter()
        .any(|(k, v)| k == "authorization" && v == "Bearer sk-test"));
    assert_eq!(sent.body["stream_options"]["include_usage"], true);
    assert_eq!(sent.body["tool_choice"], "auto");
    assert_eq!(sent.body["tools"][0]["function"]["name"], "find_symbol");
    // Key order reaches the model as written: a 1.5B model echoed a schema whose keys came sorted.
    let keys: Vec<&String> = sent.body["tools"][0]["function"]["parameters"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["type", "properties", "required"]);

    // History: the assistant's calls with content "" (never null), results by tool_call_id.
    let protocol = Protocol::Auto;
    let mut next = request(protocol);
    next.messages.push(protocol.assistant_message(&reply));
    for call in &reply.tool_calls {
        next.messages
            .push(protocol.tool_result_message(call, "result"));
    }
    server.push("/v1/chat/completions", Script::sse(&[json!({"choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]})]));
    assert_eq!(turn(&client, &next).0.unwrap().content, "Done.");
    let messages = server.requests_to("/v1/chat/completions")[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages[2]["content"], "");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_abc");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"name\":\"get_collection_name\"}"
    );
    assert_eq!(
        (
            messages[3]["role"].as_str(),
            messages[3]["tool_call_id"].as_str()
        ),
        (Some("tool"), Some("call_abc"))
    );
    assert_eq!(messages[4]["tool_call_id"], "call_def");
}

#[test]
fn openai_stream_split_at_every_byte_gives_the_same_reply() {
    let server = FakeServer::start();
    let client = openai(&server);
    let whole = openai_tool_stream();
    for cut in 1..whole.bytes() {
        server.push("/v1/chat/completions", whole.clone().split_at(&[cut]));
        let reply = turn(&client, &request(Protocol::Auto)).0.unwrap();
        assert_eq!(reply.tool_calls.len(), 2, "cut at {cut}");
        assert_eq!(
            reply.tool_calls[0].arguments,
            json!({"name": "get_collection_name"}),
            "cut at {cut}"
        );
    }
}

/// A model that writes its call as text: the answer streams, the call is found.
#[test]
fn hermes_text_calls_through_openai_sse() {
    let server = FakeServer::start();
    let text = "I will search.\n<tool_call>\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"get_collection_name\"}}\n</tool_call>";
    let deltas: Vec<Value> = text
        .as_bytes()
        .chunks(7)
        .map(|c| json!({"choices": [{"index": 0, "delta": {"content": String::from_utf8_lossy(c)}, "finish_reason": null}]}))
        .chain(std::iter::once(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})))
        .collect();
    server.push("/v1/chat/completions", Script::sse(&deltas));
    let (reply, events) = turn(&openai(&server), &request(Protocol::Hermes));
    let reply = reply.unwrap();
    assert_eq!(reply.content, "I will search.\n");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"name": "get_collection_name"})
    );
    assert_eq!(reply.raw, text, "the raw reply is kept for the history");
    let shown: String = events
        .iter()
        .filter_map(|e| {
            if let Event::Content(t) = e {
                Some(t.as_str())
            } else {
                None
            }
        })
        .collect();
    assert!(
        !shown.contains("<tool"),
        "markup never reaches the user: {shown:?}"
    );
    let sent = &server.requests_to("/v1/chat/completions")[0].body;
    assert!(
        sent.get("tools").is_none(),
        "hermes describes tools in the prompt instead"
    );
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You answer questions about code.")
            && system.contains("<tools>")
            && system.contains("find_symbol")
    );
    // Results go back as user text in <tool_response>.
    let message = Protocol::Hermes.tool_result_message(&reply.tool_calls[0], "found");
    assert_eq!(
        (message.role, message.content.as_str()),
        (
            evident_llm::Role::User,
            "<tool_response>\nfound\n</tool_response>"
        )
    );
}

#[test]
fn auto_recovers_a_fenced_json_call_when_tool_calls_is_empty() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    let text = "```json\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"Index\"}}\n```";
    server.push(
        "/api/chat",
        Script::ndjson(&[json!({"message": {"role": "assistant", "content": text}, "done": true})]),
    );
    let reply = turn(&ollama(&server), &request(Protocol::Auto)).0.unwrap();
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].name, "find_symbol");
    assert_eq!(reply.content, "");
    // Unknown tool names are not recovered: the JSON stays the answer.
    server.push("/api/chat", Script::ndjson(&[json!({"message": {"role": "assistant", "content": "{\"name\": \"rm_rf\", \"arguments\": {}}"}, "done": true})]));
    let reply = turn(&ollama(&server), &request(Protocol::Auto)).0.unwrap();
    assert!(reply.tool_calls.is_empty());
    assert_eq!(reply.content, "{\"name\": \"rm_rf\", \"arguments\": {}}");
}

#[test]
fn constrained_json_sends_a_schema_and_reads_the_call() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    server.push(
        "/api/chat",
        Script::ndjson(&[
            json!({"message": {"role": "assistant", "content": "{\"tool_call\": {\"name\": \"find_symbol\", "}, "done": false}),
            json!({"message": {"role": "assistant", "content": "\"arguments\": {\"name\": \"Index\"}}}"}, "done": true}),
        ]),
    );
    let reply = turn(&ollama(&server), &request(Protocol::Constrained))
        .0
        .unwrap();
    assert_eq!(reply.tool_calls[0].arguments, json!({"name": "Index"}));
    let sent = &server.requests_to("/api/chat")[0].body;
    assert!(sent.get("tools").is_none());
    let schema = &sent["format"];
    assert_eq!(
        schema["anyOf"][0]["properties"]["tool_call"]["anyOf"][0]["properties"]["name"]["const"],
        "find_symbol"
    );
    assert_eq!(schema["anyOf"][1]["required"], json!(["response"]));

    server.push("/v1/chat/completions", Script::sse(&[json!({"choices": [{"index": 0, "delta": {"content": "{\"response\": \"In db.py.\"}"}, "finish_reason": "stop"}]})]));
    let reply = turn(&openai(&server), &request(Protocol::Constrained))
        .0
        .unwrap();
    assert_eq!(reply.content, "In db.py.");
    let sent = &server.requests_to("/v1/chat/completions")[0].body;
    assert_eq!(sent["response_format"]["type"], "json_schema");
    assert!(sent["response_format"]["json_schema"]["schema"]["anyOf"].is_array());
    assert!(
        sent.get("tool_choice").is_none(),
        "no tools are sent, so no tool_choice"
    );
}

#[test]
fn json_action_protocol_reads_calls_and_answers_and_reports_garbage() {
    let server = FakeServer::start();
    server.push("/api/show", show(4096));
    let say = |text: &str| {
        Script::ndjson(&[json!({"message": {"role": "assistant", "content": text}, "done": true})])
    };
    server.push("/api/chat", say("Sure.\n```json\n{\"action\": \"call_tool\", \"tool\": \"find_symbol\", \"arguments\": {\"name\": \"Index\"}}\n```"));
    server.push(
        "/api/chat",
        say("{\"action\": \"final_answer\", \"answer\": \"Index is in store.rs.\"}"),
    );
    server.push("/api/chat", say("I think it is in store.rs"));
    let client = ollama(&server);
    let reply = turn(&client, &request(Protocol::JsonAction)).0.unwrap();
    assert_eq!(
        (
            reply.tool_calls[0].name.as_str(),
            &reply.tool_calls[0].arguments
        ),
        ("find_symbol", &json!({"name": "Index"}))
    );
    let reply = turn(&client, &request(Protocol::JsonAction)).0.unwrap();
    assert_eq!(reply.content, "Index is in store.rs.");
    let (reply, events) = turn(&client, &request(Protocol::JsonAction));
    let reply = reply.unwrap();
    assert!(reply.tool_calls.is_empty());
    assert_eq!(
        reply.protocol_errors.len(),
        1,
        "unparseable output is an explicit error"
    );
    assert_eq!(reply.protocol_errors[0].raw, "I think it is in store.rs");
    assert!(events.iter().any(|e| matches!(e, Event::ProtocolError(_))));
    let system = server.requests_to("/api/chat")[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("\"action\": \"call_tool\""));
}

// ---- faults ----

fn error_of(result: Result<Reply, TurnError>) -> TurnError {
    result.expect_err("the turn should fail")
}

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
