//! Streams and protocols.

use super::*;

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
