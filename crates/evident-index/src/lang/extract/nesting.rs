//! Nesting by byte ranges: which definition encloses which, methods inside
//! class-like scopes, and the qualified names that follow.

use std::collections::HashMap;

use tree_sitter::Node;

use super::facts::Definition;
use crate::evidence::Kind;
use crate::lang::LanguageSpec;

/// A definition or a scope while nesting is worked out.
pub(super) struct Scoped {
    pub(super) start_byte: usize,
    /// Where the definition itself starts, after its wrapper's decorators:
    /// a decorator runs in the scope around the definition.
    pub(super) own_start_byte: usize,
    pub(super) end_byte: usize,
    pub(super) start_line: u32,
    pub(super) end_line: u32,
    /// Byte columns on `start_line` and `end_line` (see [`Definition::columns`]).
    pub(super) columns: (u32, u32),
    pub(super) name: String,
    /// `None` for a pure scope (`impl`).
    pub(super) kind: Option<Kind>,
    pub(super) doc: Option<String>,
    pub(super) receiver: Option<String>,
    pub(super) bases: Vec<String>,
    pub(super) signature: String,
    pub(super) leading_doc: Option<String>,
    pub(super) declaration: bool,
}

/// The node a definition's extent and doc comment hang off: its decorator or export wrapper.
pub(super) fn wrapper_of<'t>(spec: &LanguageSpec, node: Node<'t>) -> Node<'t> {
    match node.parent() {
        Some(parent) if spec.wrapper_kinds.contains(&parent.kind()) => parent,
        _ => node,
    }
}

/// Sorts definitions and scopes by position and finds each one's enclosing item.
/// Returns `(item, parent index)` in source order.
pub(super) fn nest(scoped: HashMap<usize, Scoped>) -> Vec<(Scoped, Option<usize>)> {
    let mut items: Vec<Scoped> = scoped.into_values().collect();
    // Outer before inner; ties broken by content, never by node address, so
    // the order (and so every parent link) is the same on every run.
    items.sort_by(|a, b| {
        (a.start_byte, std::cmp::Reverse(a.end_byte), a.kind, &a.name).cmp(&(
            b.start_byte,
            std::cmp::Reverse(b.end_byte),
            b.kind,
            &b.name,
        ))
    });
    let mut out: Vec<(Scoped, Option<usize>)> = Vec::with_capacity(items.len());
    let mut stack: Vec<usize> = Vec::new();
    for item in items {
        while let Some(&top) = stack.last() {
            if out[top].0.end_byte <= item.start_byte {
                stack.pop();
            } else {
                break;
            }
        }
        let parent = stack.last().copied();
        stack.push(out.len());
        out.push((item, parent));
    }
    out
}

/// Definitions (and scopes) nested deeper than this are read as code of the
/// one at this depth: real code stays far below it, and a generated or
/// hostile file nested 20,000 deep would otherwise give names whose total
/// length grows with the square of the depth.
pub const MAX_DEFINITION_DEPTH: usize = 256;

/// Where a definition or scope sits, for finding a call's enclosing definition.
pub(super) struct Span {
    pub(super) start: usize,
    /// Calls from `start` up to here (decorators) belong to the scope around.
    pub(super) own_start: usize,
    pub(super) end: usize,
    /// Index into the definitions; `None` for a pure scope.
    pub(super) definition: Option<usize>,
    /// Index into the spans.
    pub(super) parent: Option<usize>,
}

/// Turns nested items into definitions with kinds refined and qualified names.
/// Also returns, for each item in source order, its `(start, end, definition index)`
/// so call sites can find their enclosing definition.
pub(super) fn qualify(
    spec: &LanguageSpec,
    module: &str,
    items: Vec<(Scoped, Option<usize>)>,
) -> (Vec<Definition>, Vec<Span>) {
    let mut qualified: Vec<String> = Vec::with_capacity(items.len());
    let mut definition_index: Vec<Option<usize>> = Vec::with_capacity(items.len());
    let mut definitions = Vec::new();
    let mut spans = Vec::with_capacity(items.len());
    // `depth[i]`: how many items enclose item i, itself included; `anchor[i]`:
    // item i, or past the depth limit its ancestor at the limit.
    let mut depth: Vec<usize> = Vec::with_capacity(items.len());
    let mut anchor: Vec<usize> = Vec::with_capacity(items.len());
    for (i, (item, parent)) in items.iter().enumerate() {
        depth.push(parent.map_or(1, |p| depth[p] + 1));
        if depth[i] > MAX_DEFINITION_DEPTH {
            // Code nested this deep is its ancestor's code: no name of its
            // own (each would be longer than the last: quadratic), and its
            // calls are the ancestor's.
            let a = anchor[parent.expect("nested past the limit")];
            anchor.push(a);
            qualified.push(String::new());
            definition_index.push(None);
            spans.push(Span {
                start: item.start_byte,
                own_start: item.own_start_byte,
                end: item.end_byte,
                definition: None,
                parent: Some(a),
            });
            continue;
        }
        anchor.push(i);
        let prefix = match parent {
            Some(p) => qualified[*p].clone(),
            None => module.to_string(),
        };
        let mut segments: Vec<&str> = Vec::new();
        if !prefix.is_empty() {
            segments.push(&prefix);
        }
        if let Some(receiver) = &item.receiver {
            segments.push(receiver);
        }
        segments.push(&item.name);
        qualified.push(segments.join(spec.separator));

        let parent_def = parent.and_then(|p| definition_index[p]);
        // The nearest enclosing definition, skipping pure scopes.
        let mut enclosing_def = parent_def;
        let mut cursor = *parent;
        while enclosing_def.is_none() {
            match cursor {
                Some(p) => {
                    enclosing_def = definition_index[p];
                    cursor = items[p].1;
                }
                None => break,
            }
        }
        let index = item.kind.map(|kind| {
            let in_class = match parent {
                Some(p) => items[*p].0.kind.is_none_or(Kind::is_class_like),
                None => false,
            };
            let kind = if kind == Kind::Function && (in_class || item.receiver.is_some()) {
                Kind::Method
            } else {
                kind
            };
            definitions.push(Definition {
                kind,
                name: item.name.clone(),
                qualified_name: qualified[i].clone(),
                signature: item.signature.clone(),
                doc: item.doc.clone().or_else(|| item.leading_doc.clone()),
                start_line: item.start_line,
                end_line: item.end_line,
                columns: item.columns,
                parent: enclosing_def,
                bases: item.bases.clone(),
                declaration: item.declaration,
            });
            definitions.len() - 1
        });
        definition_index.push(index);
        // A variable's (or property's) value runs in the scope around it
        // (`registry = Registry()` at module level is the module's call), so
        // it encloses no call.
        let encloses = !matches!(
            item.kind,
            Some(Kind::Variable | Kind::Constant | Kind::Property)
        );
        spans.push(Span {
            start: item.start_byte,
            own_start: item.own_start_byte,
            end: item.end_byte,
            definition: index.filter(|_| encloses),
            parent: *parent,
        });
    }
    (definitions, spans)
}

/// The innermost definition (not scope) whose span contains `byte`.
pub(super) fn innermost(spans: &[Span], byte: usize) -> Option<usize> {
    // Last item starting at or before `byte`, then up its ancestors until one contains it.
    let mut at = spans.partition_point(|s| s.start <= byte).checked_sub(1);
    while let Some(i) = at {
        let span = &spans[i];
        if span.own_start <= byte && byte < span.end && span.definition.is_some() {
            return span.definition;
        }
        at = span.parent;
    }
    None
}

/// The byte columns where `node` starts on its first line and ends on its
/// last ([`end_line_of`]): `u32::MAX` when it runs to the line's end.
pub(super) fn columns_of(node: Node) -> (u32, u32) {
    let (start, end) = (node.start_position(), node.end_position());
    let end_column = if end.column == 0 && end.row > start.row {
        u32::MAX
    } else {
        end.column as u32
    };
    (start.column as u32, end_column)
}

pub(super) fn end_line_of(node: Node) -> u32 {
    let end = node.end_position();
    // A node ending at column 0 ends on the previous line (trailing newline).
    let row = if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    };
    row as u32 + 1
}
