//! Reading a call's arguments, and naming its target forgivingly.

use evident_index::{Index, Kind};
use serde_json::{Map, Value};

use super::contract::{ToolContext, ToolError, ToolOutput};
use evident_index::lang::syntax;

pub(super) fn open(context: &ToolContext) -> Result<Index, ToolError> {
    Ok(Index::open(&context.root)?)
}

pub(super) fn text<'a>(arguments: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    arguments.get(key).and_then(Value::as_str)
}

pub(super) fn number(arguments: &Map<String, Value>, key: &str) -> Option<u64> {
    arguments.get(key).and_then(Value::as_u64)
}

/// The `kind` argument; not an enum in the schema, to keep the prompt short.
/// A word that is no kind is refused (the escape corpus holds such calls); a
/// kind that matches nothing is dropped by the tool, with a note.
pub(super) fn kind(arguments: &Map<String, Value>) -> Result<Option<Kind>, ToolError> {
    match text(arguments, "kind") {
        None => Ok(None),
        Some(name) => Kind::parse(name).map(Some).ok_or_else(|| {
            ToolError::Arguments({
                let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "field \"kind\": {name:?} is not a kind; use one of {}",
                    kinds.join(", ")
                )
            })
        }),
    }
}

/// A result's summary, led by the notes on arguments that were forgiven.
pub(super) fn with_notes(mut output: ToolOutput, notes: Vec<String>) -> ToolOutput {
    if !notes.is_empty() {
        output.summary = format!("note: {}. {}", notes.join("; "), output.summary);
    }
    output
}

/// A symbol argument and its path filter after forgiving what a small model
/// gets wrong when the intent is clear: a path that holds no definition of
/// the name is dropped, and a qualified name that does not exist stands for
/// its last segment when exactly one definition has that name. Each change is
/// said in `notes`.
pub(super) fn forgiving_target(
    index: &Index,
    symbol: &str,
    path: Option<&str>,
    notes: &mut Vec<String>,
) -> (String, Option<String>) {
    let found = |symbol: &str, path: Option<&str>| {
        !matches!(
            index.graph_targets(symbol, path),
            Err(evident_index::Error::NotFound(_))
        )
    };
    let mut symbol = symbol.trim().to_string();
    let mut path = path.map(str::to_string);
    if let Some(p) = path.as_deref() {
        if !found(&symbol, Some(p)) && found(&symbol, None) {
            notes.push(format!(
                "{p} holds no definition of {symbol}, so the path filter was dropped"
            ));
            path = None;
        }
    }
    if !found(&symbol, path.as_deref()) {
        let bare = last_segment(&symbol);
        if bare != symbol {
            if let Ok(targets) = index.graph_targets(bare, None) {
                if let [target, ..] = targets.as_slice() {
                    notes.push(format!(
                        "no definition is named {symbol}; using {} ({}:{}), the one definition named {bare}{}",
                        target.qualified_name,
                        target.path,
                        target.start_line,
                        if path.is_some() { ", without the path filter" } else { "" }
                    ));
                    symbol = bare.to_string();
                    path = None;
                }
            }
        }
    }
    (symbol, path)
}

/// `Engine.compute` → `compute`, `store::Db::new` → `new`.
pub(super) fn last_segment(name: &str) -> &str {
    let name = name.trim().trim_end_matches("()");
    syntax::last_segment(name)
}
