//! One server's entry put into a client's configuration text, everything
//! else in it kept as it was: other servers, other settings, comments,
//! indentation and key order (jsonc-parser's CST, toml_edit's document).

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::Value;

use super::clients::Format;

/// Why a file was left alone.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The file is not valid in the client's format.
    DoesNotParse(String),
    /// A key on the way to the servers holds something other than a table.
    NotATable(String),
    /// The file holds something other than an object (`[]`, `3`).
    NoObject,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::DoesNotParse(why) => write!(f, "does not parse: {why}"),
            Refusal::NotATable(key) => write!(f, "`{key}` is there but holds no table of servers"),
            Refusal::NoObject => write!(f, "holds no object of settings at its top level"),
        }
    }
}

/// What the file says under `servers_key` for `name`, if anything.
pub fn existing(
    format: Format,
    text: &str,
    servers_key: &[&str],
    name: &str,
) -> Result<Option<Value>, Refusal> {
    if format == Format::Toml {
        let doc = parse_toml(text)?;
        let mut item = doc.as_item();
        for key in servers_key.iter().chain([&name]) {
            match item.get(key) {
                Some(next) => item = next,
                None => return Ok(None),
            }
        }
        return Ok(Some(toml_to_json(item)));
    }
    let root = parse_json(format, text)?;
    let Some(mut object) = root.object_value() else {
        return Ok(None);
    };
    for key in servers_key {
        match object.get(key) {
            Some(prop) => match prop.object_value() {
                Some(next) => object = next,
                None => return Err(Refusal::NotATable(key.to_string())),
            },
            None => return Ok(None),
        }
    }
    Ok(object.get(name).and_then(|p| p.value()?.to_serde_value()))
}

/// `text` with `entry` as the server `name` under `servers_key` (created
/// when missing, replaced when different); `new_file` fields start an empty
/// file.
pub fn put(
    format: Format,
    text: &str,
    servers_key: &[&str],
    name: &str,
    entry: &[(&str, Value)],
    new_file: &[(&str, &str)],
) -> Result<String, Refusal> {
    if format == Format::Toml {
        return put_toml(text, servers_key, name, entry);
    }
    let root = parse_json(format, text)?;
    let top = match root.value() {
        None => {
            let top = root.object_value_or_set();
            for (key, value) in new_file {
                top.append(key, CstInputValue::String(value.to_string()));
            }
            top
        }
        Some(_) => root.object_value().ok_or(Refusal::NoObject)?,
    };
    let servers = servers_key.iter().try_fold(top, |object: CstObject, key| {
        object
            .object_value_or_create(key)
            .ok_or_else(|| Refusal::NotATable(key.to_string()))
    })?;
    let value = CstInputValue::Object(entry.iter().map(|(k, v)| (k.to_string(), cst(v))).collect());
    match servers.get(name) {
        Some(prop) => prop.set_value(value),
        None => {
            servers.append(name, value);
        }
    }
    let mut out = root.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

fn parse_json(format: Format, text: &str) -> Result<CstRootNode, Refusal> {
    // The CST keeps comments whatever the options say: plain JSON is
    // checked as the client's own JSON parser would read it.
    if format == Format::Json && !text.trim().is_empty() {
        serde_json::from_str::<Value>(text).map_err(|e| Refusal::DoesNotParse(e.to_string()))?;
    }
    // Comments and trailing commas where the client reads them; nothing a
    // JSON reader would refuse anywhere.
    let lenient = format == Format::Jsonc;
    let options = ParseOptions {
        allow_comments: lenient,
        allow_trailing_commas: lenient,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    CstRootNode::parse(text, &options).map_err(|e| Refusal::DoesNotParse(e.to_string()))
}

fn cst(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst(v))).collect())
        }
    }
}

fn parse_toml(text: &str) -> Result<toml_edit::DocumentMut, Refusal> {
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| Refusal::DoesNotParse(e.to_string().trim().replace('\n', " ")))
}

fn put_toml(
    text: &str,
    servers_key: &[&str],
    name: &str,
    entry: &[(&str, Value)],
) -> Result<String, Refusal> {
    let mut doc = parse_toml(text)?;
    let mut table = doc.as_table_mut();
    for key in servers_key {
        let item = table.entry(key).or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            // `[mcp_servers.NAME]` headers only, no bare `[mcp_servers]`.
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        });
        table = item
            .as_table_mut()
            .ok_or_else(|| Refusal::NotATable(key.to_string()))?;
    }
    let mut server = toml_edit::Table::new();
    for (key, value) in entry {
        server.insert(key, toml_edit::Item::Value(toml_value(value)));
    }
    table.insert(name, toml_edit::Item::Table(server));
    Ok(doc.to_string())
}

fn toml_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => n.as_i64().map_or_else(|| n.to_string().into(), Into::into),
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => items
            .iter()
            .map(toml_value)
            .collect::<toml_edit::Array>()
            .into(),
        Value::Object(map) => {
            let mut table = toml_edit::InlineTable::new();
            for (k, v) in map {
                table.insert(k, toml_value(v));
            }
            table.into()
        }
        Value::Null => "".into(),
    }
}

fn toml_to_json(item: &toml_edit::Item) -> Value {
    fn value(v: &toml_edit::Value) -> Value {
        match v {
            toml_edit::Value::String(s) => Value::String(s.value().clone()),
            toml_edit::Value::Integer(i) => Value::from(*i.value()),
            toml_edit::Value::Float(f) => Value::from(*f.value()),
            toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
            toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
            toml_edit::Value::Array(a) => Value::Array(a.iter().map(value).collect()),
            toml_edit::Value::InlineTable(t) => {
                Value::Object(t.iter().map(|(k, v)| (k.to_string(), value(v))).collect())
            }
        }
    }
    match item {
        toml_edit::Item::Value(v) => value(v),
        toml_edit::Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), toml_to_json(v)))
                .collect(),
        ),
        toml_edit::Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| {
                    Value::Object(
                        t.iter()
                            .map(|(k, v)| (k.to_string(), toml_to_json(v)))
                            .collect(),
                    )
                })
                .collect(),
        ),
        toml_edit::Item::None => Value::Null,
    }
}
