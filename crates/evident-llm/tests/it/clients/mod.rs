//! Both clients against a real HTTP server that speaks the exact wire formats.

mod failures_and_servers;
mod streams_and_protocols;

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

// ---- faults ----

fn error_of(result: Result<Reply, TurnError>) -> TurnError {
    result.expect_err("the turn should fail")
}
