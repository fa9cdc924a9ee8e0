//! Content recovery: calls a model wrote as plain JSON instead of using the
//! server's `tool_calls` or `<tool_call>` markup. Recognised shapes, for tool
//! names that exist only:
//! - a bare object `{"name": ..., "arguments" | "parameters": {...}}`, with or
//!   without text around it, or in a Markdown code fence;
//! - several such objects separated by whitespace, `;` or `,`;
//! - a JSON array of such objects;
//! - Mistral's `[TOOL_CALLS]` marker before any of these, or before `name{...}`.
//!
//! A reply that starts like a call to a known tool but whose JSON does not
//! parse becomes a [`ProtocolError`], so the model can be told.

use crate::call_json::{decode_arguments, excerpt, parse_call, Leniency};
use crate::types::{ProtocolError, ToolCall};

const MISTRAL_MARKER: &str = "[TOOL_CALLS]";
const MISTRAL_END_MARKER: &str = "[/TOOL_CALLS]";

/// What recovery found in a reply's text.
#[derive(Debug, Default, PartialEq)]
pub struct Recovered {
    pub calls: Vec<ToolCall>,
    /// The text with the calls (and their fences and markers) taken out.
    pub content: String,
    pub errors: Vec<ProtocolError>,
}

/// Looks for calls to `known_tools` written as JSON in `text`; numbers them from `first_index`.
pub fn recover_calls(text: &str, known_tools: &[String], first_index: usize) -> Recovered {
    let known = |name: &str| known_tools.iter().any(|t| t == name);
    let bytes = text.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut calls = Vec::new();
    let mut at = 0;
    let mut budget = crate::call_json::ScanBudget::new(text);
    while let Some(offset) = memchr::memchr2(b'{', b'[', &bytes[at..]) {
        let start = at + offset;
        // Mistral v11: `[TOOL_CALLS]name{...}`.
        if text[start..].starts_with(MISTRAL_MARKER) {
            let after = start + MISTRAL_MARKER.len();
            if let Some((call, end)) =
                mistral_named_call(text, after, first_index + calls.len(), &known)
            {
                calls.push(call);
                spans.push((start, end));
                at = end;
            } else {
                spans.push((start, after));
                at = after;
            }
            continue;
        }
        let mut stream =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(value)) => {
                let end = start + stream.byte_offset();
                let found = calls_in(&text[start..end], &value, first_index + calls.len(), &known);
                if !found.is_empty() {
                    calls.extend(found);
                    spans.push((start, end));
                }
                // A value that is not a call is skipped whole: calls are not looked for inside data.
                at = end;
            }
            Some(Err(error)) if !budget.charge(start, &error) => break,
            _ => at = start + 1,
        }
    }
    let mut errors = Vec::new();
    if calls.is_empty() {
        if let Some(error) = incomplete_call(text, &known) {
            errors.push(error);
            return Recovered {
                calls,
                content: String::new(),
                errors,
            };
        }
        let content = if text.contains(MISTRAL_MARKER) {
            text.replace(MISTRAL_MARKER, "").trim().to_string()
        } else {
            text.to_string()
        };
        return Recovered {
            calls,
            content,
            errors,
        };
    }
    let content = remove_spans(text, &widen_to_fences(text, spans))
        .replace(MISTRAL_END_MARKER, "")
        .trim()
        .to_string();
    Recovered {
        calls,
        content,
        errors,
    }
}

/// The calls `value` holds: one call object, or an array made only of call objects.
fn calls_in(
    raw: &str,
    value: &serde_json::Value,
    first_index: usize,
    known: &dyn Fn(&str) -> bool,
) -> Vec<ToolCall> {
    let is_call = |v: &serde_json::Value| {
        v.get("name").and_then(|n| n.as_str()).is_some_and(known)
            && (v.get("arguments").is_some() || v.get("parameters").is_some())
    };
    match value {
        serde_json::Value::Object(_) if is_call(value) => {
            parse_call(raw, first_index, Leniency::Bare)
                .into_iter()
                .collect()
        }
        serde_json::Value::Array(items) if !items.is_empty() && items.iter().all(is_call) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                parse_call(&item.to_string(), first_index + i, Leniency::Bare).ok()
            })
            .map(|mut call| {
                // Re-serialised from the array: keep the arguments' own text.
                call.arguments_raw = call.arguments.to_string();
                call
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `name{...}` right after a `[TOOL_CALLS]` marker.
fn mistral_named_call(
    text: &str,
    after: usize,
    index: usize,
    known: &dyn Fn(&str) -> bool,
) -> Option<(ToolCall, usize)> {
    let rest = &text[after..];
    let name_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))?;
    let name = &rest[..name_len];
    if name.is_empty() || !known(name) || !rest[name_len..].starts_with('{') {
        return None;
    }
    let args_start = after + name_len;
    let mut stream = serde_json::Deserializer::from_str(&text[args_start..])
        .into_iter::<&serde_json::value::RawValue>();
    let raw = stream.next()?.ok()?;
    let (arguments, arguments_raw) = decode_arguments(raw.get()).ok()?;
    let call = ToolCall {
        index,
        id: None,
        name: name.to_string(),
        arguments,
        arguments_raw,
    };
    Some((call, args_start + stream.byte_offset()))
}

/// A reply that is nothing but the start of a call to a known tool whose JSON never completed.
fn incomplete_call(text: &str, known: &dyn Fn(&str) -> bool) -> Option<ProtocolError> {
    let trimmed = text.trim_start();
    let trimmed = trimmed
        .strip_prefix(MISTRAL_MARKER)
        .unwrap_or(trimmed)
        .trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    // Only JSON cut short counts; complete JSON that is not a call is text.
    let mut values = serde_json::Deserializer::from_str(trimmed).into_iter::<serde_json::Value>();
    if !matches!(values.next(), Some(Err(e)) if e.is_eof()) {
        return None;
    }
    let name_at = trimmed.find("\"name\"")?;
    let after = trimmed[name_at + 6..]
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let name = &after[..after.find('"')?];
    if !known(name) {
        return None;
    }
    Some(ProtocolError {
        raw: text.to_string(),
        message: format!(
            "the call to {name:?} is not complete JSON: {}",
            excerpt(trimmed)
        ),
    })
}

/// A call alone in a Markdown code fence takes the fence with it.
fn widen_to_fences(text: &str, spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    // Every fence marker once, so each span looks its fence up in O(log n).
    let fences: Vec<usize> = memchr::memmem::find_iter(text.as_bytes(), "```").collect();
    spans
        .into_iter()
        .map(|(start, end)| {
            let before = fences.partition_point(|&f| f + 3 <= start);
            let Some(&open) = before.checked_sub(1).and_then(|i| fences.get(i)) else {
                return (start, end);
            };
            // Between the fence and the call: an optional language label, then a newline.
            let between = &text[open + 3..start];
            let label = between.trim_end();
            let label_ok = between.len() <= 40
                && between.contains('\n')
                && label.chars().all(|c| c.is_ascii_alphanumeric())
                || between.trim().is_empty();
            if !label_ok {
                return (start, end);
            }
            let after = text[end..].trim_start();
            match after.strip_prefix("```") {
                Some(stripped) => (open, text.len() - stripped.len()),
                None => (start, end),
            }
        })
        .collect()
}

/// The text without the spans; separators left between calls go too, and
/// content that is only punctuation left over from call syntax becomes empty.
fn remove_spans(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::new();
    let mut last = 0;
    for (i, &(start, end)) in spans.iter().enumerate() {
        let start = start.max(last);
        let gap = &text[last..start];
        let between_calls = i > 0
            && gap
                .chars()
                .all(|c| c.is_whitespace() || c == ';' || c == ',');
        if !between_calls {
            out.push_str(gap);
        }
        last = end.max(last);
    }
    out.push_str(&text[last..]);
    if out
        .chars()
        .all(|c| c.is_whitespace() || "[]{};,".contains(c))
    {
        return String::new();
    }
    out.trim().to_string()
}
