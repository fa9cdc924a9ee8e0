//! Fuzzing with proptest: argument validation and the sandbox, over the
//! hostile repository (any call that passes validation and runs must never
//! show a forbidden file), and search queries as FTS5 sees them (any text is
//! an answer or a clear refusal, never an SQL error).
//!
//! Cases per target: `EVIDENT_FUZZ_CASES` (256 by default).

use evident_agent::session::render_output;
use evident_agent::{Registry, ToolContext};
use evident_index::{Config, IndexOptions};
use evident_llm::ToolCall;
use evident_testkit::hostile_repo::{hostile_repo, CANARY};
use proptest::prelude::*;
use serde_json::{json, Value};

fn cases() -> u32 {
    std::env::var("EVIDENT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Paths built from the pieces attacks are made of.
fn hostile_path() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just(".."),
        Just("."),
        Just("/"),
        Just("//"),
        Just("\\"),
        Just("~"),
        Just("%2e"),
        Just("%2f"),
        Just("\u{ff0e}"),
        Just("\u{2215}"),
        Just("\0"),
        Just("\n"),
        Just("app.py"),
        Just("docs"),
        Just("guide.md"),
        Just(".env"),
        Just(".env.local"),
        Just(".git"),
        Just("config"),
        Just("link_out"),
        Just("link_dir"),
        Just("rel_link"),
        Just("link_etc"),
        Just("loop_a"),
        Just("self_loop"),
        Just("hard.py"),
        Just("env_link.py"),
        Just("big.py"),
        Just("blob.py"),
        Just("outside"),
        Just("secret.txt"),
        Just("etc"),
        Just("passwd"),
        Just("id_rsa"),
        Just("{repo}"),
        Just("{outside}"),
    ];
    proptest::collection::vec(atom, 1..10).prop_map(|atoms| atoms.concat())
}

fn hostile_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        hostile_path().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (0u64..500).prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        "\\PC{0,30}".prop_map(Value::from),
        Just(json!(["app.py"])),
        Just(json!({"path": "app.py"})),
    ]
}

fn hostile_arguments() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("path".to_string()),
        Just("start_line".to_string()),
        Just("end_line".to_string()),
        Just("query".to_string()),
        Just("name".to_string()),
        Just("module".to_string()),
        Just("symbol".to_string()),
        Just("doc_id".to_string()),
        Just("base".to_string()),
        Just("kind".to_string()),
        Just("limit".to_string()),
        Just("depth".to_string()),
        "[a-z_]{1,8}",
    ];
    let object = proptest::collection::vec((key, hostile_value()), 0..6).prop_map(|pairs| {
        // Written by hand so that keys may repeat.
        let body: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}: {v}", json!(k)))
            .collect();
        format!("{{{}}}", body.join(", "))
    });
    prop_oneof![8 => object, 1 => "\\PC{0,40}", 1 => Just("[]".to_string()), 1 => Just("null".to_string())]
}

fn tool_name() -> impl Strategy<Value = String> {
    if let Ok(only) = std::env::var("EVIDENT_FUZZ_TOOL") {
        return Just(only).boxed();
    }
    prop_oneof![
        8 => prop::sample::select(vec![
            "search_code", "find_symbol", "read_evidence", "find_importers", "get_callers",
            "analyze_impact", "read_git_diff", "list_sources", "read_source",
        ]).prop_map(str::to_string),
        1 => "\\PC{0,20}",
    ]
    .boxed()
}

/// Calls shaped like each tool's own, so that many pass validation and run.
fn plausible_call() -> impl Strategy<Value = (String, String)> {
    let text = "\\PC{1,30}";
    prop_oneof![
        (hostile_path(), 1u64..30, 1u64..60).prop_map(|(path, start, len)| (
            "read_evidence".to_string(),
            json!({"path": path, "start_line": start, "end_line": start + len}).to_string()
        )),
        text.prop_map(|q| ("search_code".to_string(), json!({"query": q}).to_string())),
        text.prop_map(|n| ("find_symbol".to_string(), json!({"name": n}).to_string())),
        (text, hostile_path()).prop_map(|(n, p)| (
            "get_callers".to_string(),
            json!({"symbol": n, "path": p}).to_string()
        )),
        text.prop_map(|m| (
            "find_importers".to_string(),
            json!({"module": m}).to_string()
        )),
        hostile_path().prop_map(|p| ("read_git_diff".to_string(), json!({"path": p}).to_string())),
        Just(("list_sources".to_string(), "{}".to_string())),
    ]
}

#[test]
fn validated_calls_never_show_a_forbidden_file() {
    let hostile = hostile_repo();
    evident_index::index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let registry = Registry::read_only(&[]).unwrap();
    let config = Config::load(&hostile.repo).unwrap();
    let context = ToolContext::plain(hostile.repo.clone());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let (ran, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(
            &prop_oneof![(tool_name(), hostile_arguments()), plausible_call()],
            |(name, raw)| {
                let raw = hostile.expand(&raw);
                let call = ToolCall {
                    index: 0,
                    id: None,
                    name,
                    arguments: serde_json::from_str(&raw).unwrap_or(Value::Null),
                    arguments_raw: raw,
                };
                let started = std::time::Instant::now();
                let text = match registry.validate(&call, &hostile.repo, &config) {
                    Err(why) => {
                        refused.set(refused.get() + 1);
                        why.to_string()
                    }
                    Ok(valid) => {
                        ran.set(ran.get() + 1);
                        match valid.tool.run(&context, &valid.arguments) {
                            Ok(output) => render_output(&output),
                            Err(why) => why.to_string(),
                        }
                    }
                };
                prop_assert!(
                    !text.contains(CANARY),
                    "{} {}: {}",
                    call.name,
                    call.arguments_raw,
                    text
                );
                let took = started.elapsed();
                prop_assert!(
                    took < std::time::Duration::from_secs(5),
                    "{} {} took {took:?}",
                    call.name,
                    call.arguments_raw
                );
                Ok(())
            },
        )
        .unwrap();
    eprintln!(
        "fuzz validate+run: {} calls ran, {} refused",
        ran.get(),
        refused.get()
    );
    assert!(ran.get() > 0, "the generator never made a valid call");
}

#[test]
fn any_search_text_is_an_answer_or_a_clear_refusal() {
    let hostile = hostile_repo();
    evident_index::index_repo(&hostile.repo, &IndexOptions::default()).unwrap();
    let index = evident_index::Index::open(&hostile.repo).unwrap();
    let query = prop_oneof![
        "\\PC{0,60}",
        proptest::collection::vec(
            prop::sample::select(vec![
                "\"", "*", "AND", "OR", "NOT", "NEAR", "NEAR(", "(", ")", ":", "^", "-", "+", "{",
                "}", "main", "helper", "app", "col:", "'", "\\", "%", "_", " ", "\u{0}", "é", "𝄞",
            ]),
            0..20,
        )
        .prop_map(|parts| parts.concat()),
    ];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&query, |text| {
            match index.search(&evident_index::SearchQuery::new(text.clone())) {
                Ok(hits) => {
                    for hit in hits {
                        prop_assert!(!hit.snippet.contains(CANARY));
                    }
                }
                Err(e) => {
                    let message = e.to_string();
                    prop_assert!(
                        !message.to_lowercase().contains("fts5") && !message.contains("SQL"),
                        "{text:?}: {message}"
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}
