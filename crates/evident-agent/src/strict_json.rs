//! JSON arguments read strictly: one object, and no key twice at any depth.
//! `serde_json` alone keeps the last of two equal keys without a word, which
//! would let `{"path": "ok.py", "path": "/etc/passwd"}` pass a check on one
//! value and run with the other.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// How this module's own error for a key written twice begins: serde only
/// carries custom errors as text, so the one message is made and recognised
/// here, from this constant.
const DUPLICATE_KEY: &str = "duplicate key";

/// A JSON value whose objects were checked for duplicate keys.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("{DUPLICATE_KEY} {key:?}")));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Parses `text` as one JSON object with no duplicate keys at any depth.
pub fn parse_object(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.trim();
    if text.is_empty() {
        // A call with no arguments at all is an empty object.
        return Ok(Map::new());
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let Strict(value) = Strict::deserialize(&mut deserializer).map_err(|e| {
        let message = e.to_string();
        if message.starts_with(DUPLICATE_KEY) {
            format!("the arguments have a {message}: each key may appear once")
        } else {
            format!("the arguments are not valid JSON ({message})")
        }
    })?;
    deserializer
        .end()
        .map_err(|_| "the arguments must be one JSON object, with nothing after it".to_string())?;
    match value {
        Value::Object(object) => Ok(object),
        other => Err(format!(
            "the arguments must be a JSON object, not {}",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            }
        )),
    }
}

/// The duplicate key in `text`, when `text` is JSON with a key written twice
/// in some object (`None` for JSON without one, and for text that is not JSON:
/// other checks report that). For messages parsed by code that keeps the last
/// of two equal keys, as the MCP SDK does.
pub fn duplicate_key(text: &str) -> Option<String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match Strict::deserialize(&mut deserializer) {
        Err(e) if e.to_string().starts_with(DUPLICATE_KEY) => Some(e.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_refused_at_any_depth() {
        assert!(parse_object(r#"{"a": 1, "b": {"c": [1, {"d": 2}]}}"#).is_ok());
        let top = parse_object(r#"{"path": "a.py", "path": "/etc/passwd"}"#).unwrap_err();
        assert!(top.contains("duplicate key \"path\""), "{top}");
        let deep = parse_object(r#"{"a": [{"x": 1, "x": 2}]}"#).unwrap_err();
        assert!(deep.contains("duplicate key \"x\""), "{deep}");
        // Escapes are decoded first: these are the same key.
        let escaped = parse_object(r#"{"path": 1, "p\u0061th": 2}"#).unwrap_err();
        assert!(escaped.contains("duplicate key"), "{escaped}");
    }

    #[test]
    fn duplicate_key_names_only_duplicates() {
        let found = duplicate_key(r#"{"params": {"arguments": {"path": "a", "path": "b"}}}"#);
        assert!(found.unwrap().starts_with("duplicate key \"path\""));
        assert_eq!(duplicate_key(r#"{"a": {"b": 1}, "b": 2}"#), None);
        assert_eq!(duplicate_key("not json"), None);
        assert_eq!(duplicate_key(r#"{"a": 1"#), None);
    }

    #[test]
    fn only_one_object() {
        assert!(parse_object("[1]").unwrap_err().contains("not an array"));
        assert!(parse_object("\"x\"").unwrap_err().contains("not a string"));
        assert!(parse_object("{} {}")
            .unwrap_err()
            .contains("nothing after it"));
        assert!(parse_object("{\"a\": }")
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(parse_object("  ").unwrap().is_empty());
    }
}
