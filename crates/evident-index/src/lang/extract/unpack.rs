//! Unpacking assignments: `a, b = f, g`, `a, (b, c) = f, (g, h)`,
//! `a, *rest, z = ...` and chains `a = b = f` bind each name to what its
//! position holds on the right. The query marks such an assignment
//! (`#set! assign.unpack`) with its whole target and value; this pairs them
//! by position, the same way for every grammar whose sequences are nodes
//! with one named child per element.

use tree_sitter::Node;

use super::facts::{Binding, ELEMENTS};

/// One name and what it is bound to.
pub(super) struct Pair<'t> {
    /// The name's node; a starred name (`*rest`) binds its elements.
    pub(super) name: Node<'t>,
    pub(super) elements: bool,
    pub(super) value: Node<'t>,
    pub(super) binding: Binding,
}

/// The pairs of `target = value`, nested sequences followed; a position
/// whose value is neither a name nor a call binds nothing.
pub(super) fn pairs<'t>(target: Node<'t>, value: Node<'t>) -> Vec<Pair<'t>> {
    let mut out = Vec::new();
    walk(target, innermost(value), false, &mut out);
    out
}

/// `a = b = f`: the value of the innermost assignment of a chain.
fn innermost(mut value: Node<'_>) -> Node<'_> {
    while value.kind().contains("assignment") {
        match value.child_by_field_name("right") {
            Some(right) => value = right,
            None => break,
        }
    }
    value
}

fn walk<'t>(target: Node<'t>, value: Node<'t>, elements: bool, out: &mut Vec<Pair<'t>>) {
    if let Some(name) = starred(target) {
        return walk(name, value, true, out);
    }
    if is_name(target) {
        if let Some(binding) = binding_of(value) {
            let value = match binding {
                Binding::CallResult => value.child_by_field_name("function").unwrap_or(value),
                _ => value,
            };
            out.push(Pair {
                name: target,
                elements,
                value,
                binding,
            });
        }
        return;
    }
    let targets = named_children(target);
    let values = named_children(value);
    if targets.is_empty() || values.is_empty() || is_name(value) {
        return;
    }
    // A starred target takes what the others leave.
    let star = targets.iter().position(|t| starred(*t).is_some());
    let fixed = targets.len() - usize::from(star.is_some());
    if values.len() < fixed || (star.is_none() && values.len() != fixed) {
        return;
    }
    for (i, t) in targets.iter().enumerate() {
        match star {
            Some(s) if i == s => {
                for v in &values[s..values.len() - (targets.len() - 1 - s)] {
                    walk(*t, *v, false, out);
                }
            }
            Some(s) if i > s => walk(*t, values[values.len() - (targets.len() - i)], false, out),
            _ => walk(*t, values[i], false, out),
        }
    }
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| !n.kind().contains("comment"))
        .collect()
}

/// `*rest` (a splat or rest pattern): the name inside.
fn starred(node: Node<'_>) -> Option<Node<'_>> {
    let kind = node.kind();
    if kind.contains("splat") || kind.contains("rest") {
        return named_children(node).into_iter().next();
    }
    None
}

/// A plain name, the only target that binds (attributes keep their own rules).
fn is_name(node: Node<'_>) -> bool {
    node.kind() == "identifier"
}

/// How a value position binds: a name or member as an alias, a call by its result.
fn binding_of(value: Node<'_>) -> Option<Binding> {
    match value.kind() {
        "identifier" | "attribute" | "member_expression" | "field_expression" => {
            Some(Binding::Alias)
        }
        kind if kind.starts_with("call") && value.child_by_field_name("function").is_some() => {
            Some(Binding::CallResult)
        }
        _ => None,
    }
}

/// The stored name of a pair: a starred name binds its elements.
pub(super) fn stored_name(text: &str, pair: &Pair<'_>) -> String {
    if pair.elements {
        format!("{text}{ELEMENTS}")
    } else {
        text.to_string()
    }
}
