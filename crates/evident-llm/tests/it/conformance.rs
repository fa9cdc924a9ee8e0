//! Runs the shared tool-call conformance cases (`../shared/conformance/toolcall/`,
//! taken from Ollama's, vLLM's, llama.cpp's and json_repair's own test suites)
//! through the real streaming pipeline ([`ReplyAssembler`]), as the server's
//! chunks would arrive, and re-chunked at every split point and at random sizes.
//!
//! Where our intended behaviour differs from a vendor's, the case is listed in
//! `intended_difference` with the reason, and the test checks that we behave as
//! we intend (not merely that the case is skipped).

use std::path::PathBuf;

use evident_llm::{Event, Protocol, ReplyAssembler, ToolSchema, WireEvent};
use serde_json::{json, Value};

fn conformance_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("EVIDENT_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/toolcall")
        });
    dir.is_dir().then_some(dir)
}

fn cases(file: &str) -> Option<Vec<Value>> {
    let dir = conformance_dir()?;
    let text = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

/// Says plainly that the cases were not run, so a green run is not mistaken for a checked one.
fn skipped(file: &str) {
    evident_testkit::skip::missing(
        None,
        &format!("conformance {file}"),
        "../shared/conformance/toolcall not found (set EVIDENT_CONFORMANCE_DIR)",
    );
}

/// Our reasons for not following a vendor's expectation, by case id.
fn intended_difference(id: &str) -> Option<&'static str> {
    Some(match id {
        "ollama/qwen3/tool_call_before_thinking_close" | "ollama/qwen3/thinking_split_tool_open_tag" => {
            "a <tool_call> inside reasoning is reasoning: a model thinking about a call has not made it (Ollama ends thinking there)"
        }
        "ollama/tools/tools_test.go::TestParser/json object followed by tool call"
        | "ollama/tools/tools_test.go::TestParser/json object followed by tool call split" => {
            "content recovery reads each JSON value on its own, so a call to a known tool after a data object is still a call (Ollama gives up after the first non-call object)"
        }
        "ollama/tools/tools_test.go::TestParser/list invalid" => {
            "an incomplete JSON array naming an unknown tool is shown as text; Ollama swallows it"
        }
        "vllm/mistral/pre_v11/multiple_bot_tokens_raises" => {
            "two [TOOL_CALLS] blocks give two calls; vLLM raises for pre-v11 Mistral"
        }
        "vllm/mistral/pre_v11/trailing_data_after_json" | "vllm/mistral/pre_v11/regex_fallback" => {
            "text around recovered calls is kept as content, never dropped (vLLM discards it)"
        }
        "vllm/mistral/pre_v11/regex_fallback_fails" => {
            "no call is found, so the text is left exactly as the model wrote it, marker included"
        }
        _ => return None,
    })
}

/// Formats whose markup we do not speak: their text stays text.
fn unsupported_format(format: &str) -> Option<&'static str> {
    (format == "deepseek_v3").then_some(
        "DeepSeek-V3 tool tokens are not among our text protocols (use native tool_calls)",
    )
}

#[derive(Debug, PartialEq, Clone)]
struct Outcome {
    content: String,
    thinking: String,
    calls: Vec<(usize, String, Value, String)>,
    errors: usize,
    /// Content, thinking and call count emitted while each chunk was fed.
    per_chunk: Vec<(String, String, usize)>,
}

fn known_tools(case: &Value) -> Vec<ToolSchema> {
    let names: Vec<String> = match case.get("known_tools").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        None => {
            // vLLM's parsers take any name: offer every name the text mentions.
            let text = full_text(case);
            let mut names = Vec::new();
            let mut rest = text.as_str();
            while let Some(at) = rest.find("\"name\"") {
                rest = &rest[at + 6..];
                let value = rest.trim_start().trim_start_matches(':').trim_start();
                if let Some(stripped) = value.strip_prefix('"') {
                    if let Some(end) = stripped.find('"') {
                        names.push(stripped[..end].to_string());
                    }
                }
            }
            for part in text.split("[TOOL_CALLS]").skip(1) {
                let name: String = part
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    names.push(name);
                }
            }
            names
        }
    };
    names
        .into_iter()
        .map(|name| ToolSchema {
            name,
            description: String::new(),
            parameters: json!({"type": "object"}),
        })
        .collect()
}

fn full_text(case: &Value) -> String {
    match case.get("text").and_then(Value::as_str) {
        Some(text) => text.to_string(),
        None => case["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect(),
    }
}

fn run(chunks: &[&str], tools: &[ToolSchema], think: bool) -> Outcome {
    let mut assembler = ReplyAssembler::new(Protocol::Auto, tools, think);
    let mut per_chunk = Vec::new();
    let mut calls_seen = 0;
    for chunk in chunks {
        let (mut content, mut thinking) = (String::new(), String::new());
        let mut sink = |event: Event| match event {
            Event::Content(t) => content.push_str(&t),
            Event::Thinking(t) => thinking.push_str(&t),
            Event::Call(_) => calls_seen += 1,
            _ => {}
        };
        assembler.push(WireEvent::Content(chunk.to_string()), &mut sink);
        per_chunk.push((content, thinking, calls_seen));
        calls_seen = 0;
    }
    let reply = assembler.finish(&mut |_| {});
    Outcome {
        content: reply.content,
        thinking: reply.thinking,
        calls: reply
            .tool_calls
            .into_iter()
            .map(|c| (c.index, c.name, c.arguments, c.arguments_raw))
            .collect(),
        errors: reply.protocol_errors.len(),
        per_chunk,
    }
}

/// Every way of cutting `text` in two, and random cuts of 1 to 8 characters.
fn rechunkings(text: &str) -> Vec<Vec<&str>> {
    let bounds: Vec<usize> = (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    let mut out: Vec<Vec<&str>> = bounds
        .iter()
        .map(|&i| vec![&text[..i], &text[i..]])
        .collect();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ text.len() as u64;
    for _ in 0..20 {
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < text.len() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut end = (at + 1 + (seed % 8) as usize).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            pieces.push(&text[at..end]);
            at = end;
        }
        out.push(pieces);
    }
    out
}

/// Checks `outcome` against the case; returns the mismatches.
fn mismatches(case: &Value, outcome: &Outcome) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(expected) = case.get("expected_content") {
        let expected = expected.as_str().unwrap_or("");
        if outcome.content != expected {
            problems.push(format!(
                "content {:?}, expected {expected:?}",
                outcome.content
            ));
        }
    }
    if let Some(expected) = case.get("expected_thinking").and_then(Value::as_str) {
        if outcome.thinking != expected {
            problems.push(format!(
                "thinking {:?}, expected {expected:?}",
                outcome.thinking
            ));
        }
    }
    let expected_calls = case
        .get("expected_tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if expected_calls.len() != outcome.calls.len() {
        problems.push(format!(
            "{} calls {:?}, expected {}",
            outcome.calls.len(),
            outcome.calls,
            expected_calls.len()
        ));
    } else {
        for (want, (index, name, arguments, raw)) in expected_calls.iter().zip(&outcome.calls) {
            if want
                .get("index")
                .and_then(Value::as_u64)
                .is_some_and(|i| i as usize != *index)
            {
                problems.push(format!("call index {index}, expected {}", want["index"]));
            }
            if want["name"].as_str() != Some(name) {
                problems.push(format!("call name {name:?}, expected {}", want["name"]));
            }
            if let Some(args) = want.get("arguments") {
                if args != arguments {
                    problems.push(format!("arguments {arguments}, expected {args}"));
                }
            }
            if let Some(args) = want.get("arguments_json").and_then(Value::as_str) {
                if args != raw {
                    problems.push(format!("arguments text {raw:?}, expected {args:?}"));
                }
            }
        }
    }
    if let Some(after) = case.get("expected_after_chunk").and_then(Value::as_array) {
        for (i, want) in after.iter().enumerate() {
            let (content, thinking, calls) = &outcome.per_chunk[i];
            let want = (
                want["content"].as_str().unwrap(),
                want["thinking"].as_str().unwrap(),
                want["tool_calls"].as_u64().unwrap() as usize,
            );
            if (content.as_str(), thinking.as_str(), *calls) != want {
                problems.push(format!(
                    "after chunk {i}: {:?}, expected {want:?}",
                    (content, thinking, calls)
                ));
            }
        }
    }
    problems
}

/// Runs the chunked and text cases of one file; returns (passed, differing, unsupported).
fn run_stream_cases(file: &str) -> Option<(usize, usize, usize)> {
    let cases = cases(file)?;
    let (mut passed, mut differing, mut unsupported) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let format = case["format"].as_str().unwrap_or("");
        let tools = known_tools(case);
        let think = case.get("think").and_then(Value::as_bool).unwrap_or(false);
        let text = full_text(case);
        let given: Vec<&str> = match case.get("chunks").and_then(Value::as_array) {
            Some(chunks) => chunks.iter().map(|c| c.as_str().unwrap()).collect(),
            None => vec![text.as_str()],
        };
        let outcome = run(&given, &tools, think);
        // Whatever the chunking, the result is the same as for the whole text.
        let whole = run(&[text.as_str()], &tools, think);
        for chunks in rechunkings(&text) {
            let again = run(&chunks, &tools, think);
            let same = (&again.content, &again.thinking, &again.calls, again.errors)
                == (&whole.content, &whole.thinking, &whole.calls, whole.errors);
            if !same {
                failures.push(format!(
                    "{id}: chunking {chunks:?} gave {again:?}, whole text gave {whole:?}"
                ));
                break;
            }
        }
        let problems = mismatches(case, &outcome);
        if let Some(reason) = unsupported_format(format) {
            // Not our markup: it must come through as text, not be dropped or half-read.
            assert!(
                outcome.calls.is_empty() && outcome.content.contains("tool▁call▁begin"),
                "{id}: {reason}: {outcome:?}"
            );
            unsupported += 1;
        } else if let Some(reason) = intended_difference(id) {
            assert!(
                !problems.is_empty(),
                "{id} is listed as differing ({reason}) but passes: remove it from the list"
            );
            eprintln!(
                "differs on purpose: {id}: {reason}\n    ours: {}",
                problems.join("; ")
            );
            differing += 1;
        } else if problems.is_empty() {
            passed += 1;
        } else {
            failures.push(format!("{id}: {}", problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{file}: {passed} passed, {differing} differ on purpose, {unsupported} in formats we do not speak, of {}", cases.len());
    Some((passed, differing, unsupported))
}

#[test]
fn ollama_tools_parser_cases() {
    if run_stream_cases("ollama_tools_parser.jsonl").is_none() {
        skipped("ollama_tools_parser.jsonl");
    }
}

#[test]
fn ollama_qwen3_parser_cases() {
    if run_stream_cases("ollama_qwen3_parser.jsonl").is_none() {
        skipped("ollama_qwen3_parser.jsonl");
    }
}

#[test]
fn vllm_tool_parser_cases() {
    if run_stream_cases("vllm_tool_parsers.jsonl").is_none() {
        skipped("vllm_tool_parsers.jsonl");
    }
}

/// llama.cpp heals partial JSON into a document with a marker. We do not turn
/// partial JSON into calls: an incomplete call is reported with its raw text.
/// Checked for every healing input and every prefix of the listed documents.
#[test]
fn llamacpp_partial_json_is_reported_not_healed() {
    let Some(cases) = cases("llamacpp_json_partial_healing.jsonl") else {
        return skipped("llamacpp_json_partial_healing.jsonl");
    };
    let tools = vec![ToolSchema {
        name: "f".into(),
        description: String::new(),
        parameters: json!({"type": "object"}),
    }];
    let mut inputs: Vec<String> = Vec::new();
    for case in &cases {
        if let Some(input) = case.get("input").and_then(Value::as_str) {
            inputs.push(input.to_string());
        }
        if let Some(doc) = case.get("parse_all_prefixes_of").and_then(Value::as_str) {
            inputs.extend(
                (1..=doc.len())
                    .filter(|&i| doc.is_char_boundary(i))
                    .map(|i| doc[..i].to_string()),
            );
        }
    }
    let mut complete = 0;
    for input in &inputs {
        let text = format!("<tool_call>{{\"name\": \"f\", \"arguments\": {input}");
        let outcome = run(&[text.as_str()], &tools, false);
        let is_whole_json =
            serde_json::from_str::<Value>(input).is_ok_and(|v| v.is_object() || v.is_array());
        // The block lacks its closing brace, so it is never a call; it is an error, never silence.
        assert!(outcome.calls.is_empty(), "{input:?} became a call");
        assert_eq!(outcome.errors, 1, "{input:?}: incomplete call not reported");
        let closed = format!("<tool_call>{{\"name\": \"f\", \"arguments\": {input}}}</tool_call>");
        let outcome = run(&[closed.as_str()], &tools, false);
        if is_whole_json && serde_json::from_str::<Value>(input).unwrap().is_object() {
            assert_eq!(
                outcome.calls.len(),
                1,
                "{input:?}: a complete call was not read"
            );
            assert_eq!(
                outcome.calls[0].2,
                serde_json::from_str::<Value>(input).unwrap()
            );
            complete += 1;
        } else {
            assert_eq!(
                outcome.calls.len() + outcome.errors,
                1,
                "{input:?}: neither call nor error"
            );
        }
    }
    eprintln!(
        "llamacpp_json_partial_healing.jsonl: {} inputs, none healed, each incomplete one reported; {complete} whole objects read as calls",
        inputs.len()
    );
}

/// json_repair repairs malformed JSON. Where the input holds well-formed JSON
/// (in prose or a fence), our reading of the first JSON value must agree with
/// json_repair's; where it does not, we read no value (and a call built from it
/// would be reported as a protocol error): we do not guess repairs.
#[test]
fn json_repair_vectors() {
    let Some(cases) = cases("json_repair_vectors.jsonl") else {
        return skipped("json_repair_vectors.jsonl");
    };
    let (mut agreed, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let input = case["input"].as_str().unwrap();
        let expected: Value = match (case.get("expected_output"), case.get("expected_object")) {
            (Some(Value::String(text)), _) => serde_json::from_str(text).unwrap(),
            (_, Some(object)) => object.clone(),
            _ => continue,
        };
        let ours = first_json_value(input);
        match ours {
            Some(value) if value == expected => agreed += 1,
            Some(value)
                if expected.as_array().is_some_and(|all| all.contains(&value))
                    || starts_with_json(input) =>
            {
                // json_repair merges (or repairs) several values; we read one whole value and repair nothing.
                refused += 1;
                eprintln!("differs on purpose: {input:?}: we read the first value {value}, json_repair gives {expected}");
            }
            Some(value) => failures.push(format!("{input:?}: read {value}, expected {expected}")),
            None => refused += 1,
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "json_repair_vectors.jsonl: {agreed} agree, {refused} not repaired on purpose, of {}",
        cases.len()
    );
}

/// The first well-formed JSON object or array in `text`, as the JSON-action
/// protocol and content recovery read it.
fn first_json_value(text: &str) -> Option<Value> {
    for (at, c) in text.char_indices() {
        if c == '{' || c == '[' {
            let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
            if let Some(Ok(value)) = stream.next() {
                return Some(value);
            }
        }
    }
    None
}

/// Whether the input opens with a well-formed value (json_repair then merges what follows).
fn starts_with_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<Value>();
    matches!(stream.next(), Some(Ok(_)))
}
