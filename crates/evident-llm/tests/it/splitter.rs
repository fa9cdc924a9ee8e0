//! The Hermes splitter's rules, and the property that chunking never changes its output.

use evident_llm::{HermesSplitter, Piece};
use proptest::prelude::*;

/// Text, thinking, (name, arguments) calls and error count, after feeding `chunks`.
#[derive(Debug, PartialEq)]
struct Split {
    text: String,
    thinking: String,
    calls: Vec<(String, String)>,
    errors: usize,
}

fn split(chunks: &[&str], think: bool) -> (Split, Vec<Vec<Piece>>) {
    let mut splitter = HermesSplitter::new(think);
    let mut per_chunk: Vec<Vec<Piece>> = chunks.iter().map(|c| splitter.feed(c)).collect();
    per_chunk.push(splitter.finish());
    let mut out = Split {
        text: String::new(),
        thinking: String::new(),
        calls: Vec::new(),
        errors: 0,
    };
    for piece in per_chunk.iter().flatten() {
        match piece {
            Piece::Text(t) => out.text.push_str(t),
            Piece::Thinking(t) => out.thinking.push_str(t),
            Piece::Call(c) => out.calls.push((c.name.clone(), c.arguments.to_string())),
            Piece::Malformed(_) => out.errors += 1,
            Piece::CallStarted { .. } | Piece::CallDelta { .. } => {}
        }
    }
    (out, per_chunk)
}

fn whole(text: &str) -> Split {
    split(&[text], false).0
}

#[test]
fn a_partial_tag_is_held_back_then_released() {
    let (_, pieces) = split(
        &[
            "Checking <tool_ca",
            "ll>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
        ],
        false,
    );
    assert_eq!(
        pieces[0],
        vec![Piece::Text("Checking ".into())],
        "`<tool_ca` is not shown"
    );
    assert!(pieces[1]
        .iter()
        .any(|p| matches!(p, Piece::Call(c) if c.name == "f")));
    // Not a tag after all: the held text comes back, in order.
    let (out, pieces) = split(&["a <tool_", "box> b"], false);
    assert_eq!(pieces[0], vec![Piece::Text("a ".into())]);
    assert_eq!(out.text, "a <tool_box> b");
    // A partial tag at the very end is text.
    assert_eq!(whole("x < y and <tool_c").text, "x < y and <tool_c");
}

#[test]
fn a_call_in_progress_is_reported_while_it_streams() {
    let (_, pieces) = split(
        &[
            "<tool_call>{\"name\": \"f\", ",
            "\"arguments\": {\"q\": 1}}",
            "</tool_call>",
        ],
        false,
    );
    assert_eq!(pieces[0][0], Piece::CallStarted { index: 0 });
    assert!(
        matches!(&pieces[0][1], Piece::CallDelta { index: 0, text } if text == "{\"name\": \"f\", ")
    );
    assert!(
        matches!(&pieces[1][0], Piece::CallDelta { index: 0, text } if text == "\"arguments\": {\"q\": 1}}")
    );
    assert!(matches!(&pieces[2][0], Piece::Call(c) if c.arguments_raw == "{\"q\": 1}"));
}

#[test]
fn several_calls_in_one_message() {
    let out = whole("A <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> B <tool_call>{\"name\": \"b\", \"arguments\": {\"x\": [1]}}</tool_call> C");
    assert_eq!(
        out.calls,
        vec![
            ("a".into(), "{}".into()),
            ("b".into(), "{\"x\":[1]}".into())
        ]
    );
    assert_eq!(out.text, "A  B  C");
}

#[test]
fn tags_in_code_and_reasoning_are_text() {
    let fenced = "Use this format:\n```\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n```\nThat is all.";
    let out = whole(fenced);
    assert!(out.calls.is_empty(), "{out:?}");
    assert_eq!(out.text, fenced);
    let inline = "Write `<tool_call>` blocks.";
    assert_eq!(whole(inline).text, inline);
    // After the fence closes, tags count again.
    let after = "```\ncode\n```\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    assert_eq!(whole(after).calls.len(), 1);
    let reasoning = "<think>maybe <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>?</think>No call needed.";
    let out = whole(reasoning);
    assert!(out.calls.is_empty());
    assert_eq!(
        out.thinking,
        "maybe <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>?"
    );
    assert_eq!(out.text, "No call needed.");
}

#[test]
fn a_closing_tag_inside_a_json_string_does_not_close_the_call() {
    let out = whole("<tool_call>{\"name\": \"grep\", \"arguments\": {\"pattern\": \"</tool_call>\\\"x\"}}</tool_call>done");
    assert_eq!(
        out.calls,
        vec![("grep".into(), "{\"pattern\":\"</tool_call>\\\"x\"}".into())]
    );
    assert_eq!(out.text, "done");
}

#[test]
fn unreadable_calls_are_errors_not_silence() {
    let out = whole("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }}</tool_call>after");
    assert_eq!(
        (out.calls.len(), out.errors, out.text.as_str()),
        (0, 1, "after")
    );
    let out = whole("<tool_call>not json</tool_call>");
    assert_eq!(out.errors, 1);
    // Unterminated at the end of the stream: a call if its JSON is whole, else an error.
    assert_eq!(
        whole("<tool_call>{\"name\": \"f\", \"arguments\": {}}")
            .calls
            .len(),
        1
    );
    assert_eq!(whole("<tool_call>{\"name\": \"f\", \"argu").errors, 1);
}

#[test]
fn implicit_thinking_and_multibyte_text() {
    let (out, _) = split(&["推理…", "</think>", "答案 ✓"], true);
    assert_eq!(
        (out.thinking.as_str(), out.text.as_str()),
        ("推理…", "答案 ✓")
    );
}

/// Model-like output: text, code, reasoning, calls, stray `<` and backticks.
fn reply_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        "[a-zA-Z ,.\n]{0,12}",
        Just("<tool_call>{\"name\": \"find\", \"arguments\": {\"q\": \"a<b\"}}</tool_call>".to_string()),
        Just("<tool_call>\n{\"name\": \"x\", \"arguments\": {\"s\": \"</tool_call>\"}}\n</tool_call>".to_string()),
        Just("<tool_call>{\"name\": \"broken\"".to_string()),
        Just("</tool_call>".to_string()),
        Just("<think>hmm <tool_call></think>".to_string()),
        Just("\n```\n<tool_call>{}</tool_call>\n```\n".to_string()),
        Just("`<tool_call>`".to_string()),
        Just("<".to_string()),
        Just("<t".to_string()),
        Just("ü€".to_string()),
    ];
    proptest::collection::vec(atom, 0..12).prop_map(|atoms| atoms.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn any_chunking_gives_the_same_result(text in reply_text(), cuts in proptest::collection::vec(0usize..200, 0..12), think in any::<bool>()) {
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(text.len())).filter(|&c| text.is_char_boundary(c)).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut chunks = Vec::new();
        let mut last = 0;
        for b in bounds.into_iter().chain(std::iter::once(text.len())) {
            chunks.push(&text[last..b]);
            last = b;
        }
        let (chunked, _) = split(&chunks, think);
        let (unchunked, _) = split(&[text.as_str()], think);
        prop_assert_eq!(chunked, unchunked);
    }

    #[test]
    fn nothing_is_lost(text in reply_text()) {
        // Every byte ends up as text, thinking, a call or an error's raw text.
        let mut splitter = HermesSplitter::new(false);
        let mut pieces = splitter.feed(&text);
        pieces.extend(splitter.finish());
        let mut kept = 0;
        for piece in &pieces {
            kept += match piece {
                Piece::Text(t) | Piece::Thinking(t) => t.len(),
                Piece::CallDelta { text, .. } => text.len(),
                _ => 0,
            };
        }
        // Tags themselves and whitespace trimmed after them are the only bytes not kept.
        let tags = text.matches("<tool_call>").count() * 11 + text.matches("</tool_call>").count() * 12
            + text.matches("<think>").count() * 7 + text.matches("</think>").count() * 8;
        let whitespace = text.chars().filter(|c| c.is_whitespace()).count();
        prop_assert!(kept + tags + whitespace >= text.len(), "kept {} of {}", kept, text.len());
    }
}
