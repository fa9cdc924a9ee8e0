//! End to end with a real model: llama.cpp's `llama-server` running
//! Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), provisioned from package registries by
//! `scripts/provision-llm.sh`. One tool, one question, each text protocol;
//! asserts on the call (tool name and argument), never on wording.
//!
//! Without the provisioned files the test says plainly that it skipped, unless
//! `EVIDENT_REQUIRE_REAL_MODEL=1` (set by `scripts/test`), when it fails.

use std::time::{Duration, Instant};

use evident_llm::{
    run_turn, CancelToken, ChatRequest, HttpOptions, Message, OpenAiClient, OpenAiOptions,
    Protocol, ToolSchema,
};
use evident_testkit::llama::{provisioned_or_skip, LlamaServer, MODEL_1_5B};
use serde_json::json;

fn find_symbol() -> ToolSchema {
    ToolSchema {
        name: "find_symbol".into(),
        description:
            "Find where a function, class or variable is defined in the repository, by its name."
                .into(),
        parameters: json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "the symbol's name"}},
            "required": ["name"],
        }),
    }
}

/// The call the question asks for: the tool, with the symbol as its `name`.
fn correct(reply: &evident_llm::Reply) -> bool {
    reply.tool_calls.iter().any(|c| {
        c.name == "find_symbol"
            && c.arguments["name"]
                .as_str()
                .is_some_and(|n| n.contains("get_collection_name"))
    })
}

#[test]
fn a_real_model_calls_the_tool_with_each_protocol() {
    let Some((server_bin, model)) = provisioned_or_skip(MODEL_1_5B, "real-model tool call") else {
        return;
    };
    let server = LlamaServer::start(&server_bin, &model, 1);
    let http = HttpOptions {
        first_token_timeout: Duration::from_secs(240),
        idle_timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let client = OpenAiClient::new(OpenAiOptions {
        base_url: Some(server.base_url.clone()),
        api_key: None,
        http,
    });
    let tools = vec![find_symbol()];
    let question = "Where is the function get_collection_name defined?";
    let mut failures = Vec::new();
    for protocol in [
        Protocol::Auto,
        Protocol::Hermes,
        Protocol::JsonAction,
        Protocol::Constrained,
    ] {
        let request = ChatRequest {
            model: "qwen2.5-coder-1.5b".into(),
            messages: vec![
                Message::system("You are a code assistant. You answer using tools."),
                Message::user(question),
            ],
            tools: tools.clone(),
            protocol,
            temperature: Some(0.0),
            seed: Some(7),
            max_tokens: Some(160),
            ..Default::default()
        };
        // A 1.5B model at temperature 0 is still not fully deterministic (llama.cpp's prompt
        // cache changes the numerics slightly), so a protocol gets a second try; both are printed.
        let mut reply = None;
        for attempt in 1..=2 {
            let started = Instant::now();
            match run_turn(&client, &request, &CancelToken::new(), &mut |_| {}) {
                Ok(r) => {
                    eprintln!(
                        "{protocol} (try {attempt}): {:.1} s, {:?} completion tokens, calls {:?}, raw {:?}",
                        started.elapsed().as_secs_f64(),
                        r.usage.completion_tokens,
                        r.tool_calls.iter().map(|c| (&c.name, &c.arguments)).collect::<Vec<_>>(),
                        r.raw
                    );
                    if correct(&r) {
                        reply = Some(r);
                        break;
                    }
                }
                Err(e) => eprintln!("{protocol} (try {attempt}): {e}"),
            }
        }
        let Some(reply) = reply else {
            failures.push(format!(
                "{protocol}: no find_symbol(get_collection_name) call in two tries"
            ));
            continue;
        };
        if protocol == Protocol::Constrained {
            // A second step: the result goes back, and the model answers within the schema.
            let call = &reply.tool_calls[0];
            let mut next = request.clone();
            next.messages.push(protocol.assistant_message(&reply));
            next.messages.push(protocol.tool_result_message(
                call,
                "src/rag_common/db.py:12-14 function get_collection_name(prefix: str) -> str",
            ));
            match run_turn(&client, &next, &CancelToken::new(), &mut |_| {}) {
                Ok(answer)
                    if answer.protocol_errors.is_empty()
                        && (!answer.content.is_empty() || !answer.tool_calls.is_empty()) =>
                {
                    eprintln!(
                        "constrained step 2: content {:?}, calls {}",
                        answer.content,
                        answer.tool_calls.len()
                    )
                }
                Ok(answer) => failures.push(format!(
                    "constrained step 2 gave nothing usable: {answer:?}"
                )),
                Err(e) => failures.push(format!("constrained step 2: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\nserver log: {}",
        failures.join("\n"),
        server.log.display()
    );
}
