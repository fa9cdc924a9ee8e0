//! Reading one `{"name": ..., "arguments": ...}` object into a [`ToolCall`].

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::types::ToolCall;

#[derive(Deserialize)]
struct RawCall<'a> {
    name: String,
    #[serde(borrow, alias = "parameters")]
    arguments: Option<&'a RawValue>,
}

/// How strictly to read a call object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leniency {
    /// Inside explicit call markup (`<tool_call>`): the markup says it is a
    /// call, so missing arguments mean `{}` and stray closing brackets after
    /// the object are ignored.
    Marked,
    /// Bare text that may or may not be a call: the object must stand alone
    /// and carry both fields.
    Bare,
}

/// Parses `text` as one call object. The error says what is wrong, for the model.
pub(crate) fn parse_call(text: &str, index: usize, leniency: Leniency) -> Result<ToolCall, String> {
    let trimmed = text.trim();
    let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<RawCall>();
    let raw = match stream.next() {
        Some(Ok(raw)) => raw,
        Some(Err(e)) if e.is_eof() => return Err(format!("the call's JSON is incomplete ({e})")),
        Some(Err(e)) => {
            return Err(format!(
                "the call is not a JSON object with a string \"name\" ({e})"
            ))
        }
        None => return Err("the call is empty".into()),
    };
    let rest = &trimmed[stream.byte_offset()..];
    let rest_ok = match leniency {
        Leniency::Marked => rest
            .chars()
            .all(|c| c.is_whitespace() || c == '}' || c == ']'),
        Leniency::Bare => rest.trim().is_empty(),
    };
    if !rest_ok {
        return Err(format!(
            "unexpected text after the call object: {:?}",
            excerpt(rest)
        ));
    }
    if raw.name.trim().is_empty() {
        return Err("the call's \"name\" is empty".into());
    }
    let (arguments, arguments_raw) = match raw.arguments {
        Some(args) => decode_arguments(args.get())?,
        None if leniency == Leniency::Marked => {
            (Value::Object(Default::default()), "{}".to_string())
        }
        None => return Err("the call has no \"arguments\"".into()),
    };
    Ok(ToolCall {
        index,
        id: None,
        name: raw.name,
        arguments,
        arguments_raw,
    })
}

/// Arguments as written: an object stays as it is; a JSON string that holds a
/// whole JSON object is unwrapped (some models double-encode); any other value
/// is kept as it is, for the validator to reject with a clear message.
pub(crate) fn decode_arguments(raw: &str) -> Result<(Value, String), String> {
    let value: Value =
        serde_json::from_str(raw).map_err(|e| format!("the arguments are not valid JSON ({e})"))?;
    if let Value::String(inner) = &value {
        if inner.trim_start().starts_with('{') {
            if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(inner) {
                return Ok((object, inner.clone()));
            }
        }
    }
    Ok((value, raw.to_string()))
}

pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 120;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Bounds the work of trying a JSON parse at every `{` of a text. A parse that
/// fails is charged the bytes it read before failing; once the total passes
/// eight times the text (plus 1 MiB) the search stops. Real replies never come
/// near it, but openers that never close (`{"a":{"a":{"a":...`) would make
/// every attempt read to the end: quadratic time, found by `tests/it/fuzz.rs`.
pub(crate) struct ScanBudget<'t> {
    text: &'t str,
    newlines: Option<Vec<usize>>,
    left: usize,
}

impl<'t> ScanBudget<'t> {
    pub(crate) fn new(text: &'t str) -> ScanBudget<'t> {
        ScanBudget {
            text,
            newlines: None,
            left: text.len().saturating_mul(8).saturating_add(1 << 20),
        }
    }

    /// Charges a parse from byte `start` that failed with `error`; `false`
    /// once the budget is spent (stop looking).
    pub(crate) fn charge(&mut self, start: usize, error: &serde_json::Error) -> bool {
        let (line, column) = (error.line().max(1), error.column());
        let failed_at = if line == 1 {
            start + column
        } else {
            let text = self.text;
            let newlines = self
                .newlines
                .get_or_insert_with(|| memchr::memchr_iter(b'\n', text.as_bytes()).collect());
            let first = newlines.partition_point(|&n| n < start);
            newlines
                .get(first + line - 2)
                .map_or(text.len(), |&n| n + 1 + column)
        };
        let read = failed_at.saturating_sub(start).max(1);
        self.left = self.left.saturating_sub(read);
        self.left > 0
    }
}
