//! Text read from the syntax tree: names, signatures, doc comments and
//! docstrings, arguments, and the identifier helpers the graph shares.

use tree_sitter::Node;

use super::facts::MAX_ARGUMENTS;
use crate::lang::LanguageSpec;

pub(super) const MAX_SIGNATURE_CHARS: usize = 300;

pub(super) const MAX_DOC_CHARS: usize = 2000;

pub(super) const MAX_CALLEE_CHARS: usize = 200;

pub(super) fn leading_comments(spec: &LanguageSpec, node: Node, source: &str) -> Option<String> {
    if spec.comment_kinds.is_empty() {
        return None;
    }
    let mut expected_row = node.start_position().row;
    let mut sibling = node.prev_sibling();
    let mut comments: Vec<&str> = Vec::new();
    while let Some(s) = sibling {
        let kind = s.kind();
        if spec.doc_skip_kinds.contains(&kind) {
            expected_row = s.start_position().row;
        } else if spec.comment_kinds.contains(&kind) {
            // Adjacent: ends on the line above (or on the same line as) what follows.
            if s.end_position().row + 1 < expected_row {
                break;
            }
            comments.push(s.utf8_text(source.as_bytes()).unwrap_or(""));
            expected_row = s.start_position().row;
        } else {
            break;
        }
        sibling = s.prev_sibling();
    }
    if comments.is_empty() {
        return None;
    }
    comments.reverse();
    let cleaned = clean_comment(&comments.join("\n"));
    (!cleaned.is_empty()).then(|| truncate_chars(&cleaned, MAX_DOC_CHARS))
}

pub(super) fn clean_comment(raw: &str) -> String {
    let mut lines = Vec::new();
    for line in raw.lines() {
        let mut l = line.trim();
        for prefix in ["///", "//!", "//", "/**", "/*!", "/*", "#", "---", "--"] {
            if let Some(rest) = l.strip_prefix(prefix) {
                l = rest;
                break;
            }
        }
        l = l.strip_suffix("*/").unwrap_or(l);
        let l = l.trim();
        let l = l
            .strip_prefix("* ")
            .unwrap_or(if l == "*" { "" } else { l });
        lines.push(l.to_string());
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.join("\n")
}

pub(super) fn clean_docstring(raw: &str) -> String {
    let body = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let body = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| body.strip_prefix(q).and_then(|b| b.strip_suffix(q)))
        .unwrap_or(body);
    // Dedent by the smallest indentation of the lines after the first.
    let lines: Vec<&str> = body.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let dedented: Vec<&str> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.trim()
            } else {
                l.get(indent..).unwrap_or("").trim_end()
            }
        })
        .collect();
    truncate_chars(dedented.join("\n").trim(), MAX_DOC_CHARS)
}

/// The text from a definition's start to its body, on one line.
pub(super) fn signature_of(node: Node, source: &str) -> String {
    let end = node
        .child_by_field_name("body")
        .map(|b| b.start_byte())
        .unwrap_or_else(|| {
            let start = node.start_byte();
            source[start..node.end_byte()]
                .find('\n')
                .map_or(node.end_byte(), |i| start + i)
        });
    let raw = &source[node.start_byte()..end.max(node.start_byte())];
    normalize_space(
        raw.trim_end_matches(['{', ' ', '\n', '\t', '\r']),
        MAX_SIGNATURE_CHARS,
    )
}

/// The last identifier of an expression: `open` in `self.store.open`,
/// `new` in `Vec::<u8>::new`, `draw` in `new R(x).draw`.
pub fn last_identifier(expr: &str) -> &str {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let trimmed = expr.trim_end_matches(|c: char| !is_ident(c));
    let start = trimmed
        .char_indices()
        .rev()
        .find(|(_, c)| !is_ident(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    &trimmed[start..]
}

/// The first identifier of an expression: `self` in `self.store.open`.
pub fn first_identifier(expr: &str) -> &str {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let expr = expr.trim_start().trim_start_matches("new ").trim_start();
    let end = expr
        .char_indices()
        .find(|(_, c)| !is_ident(*c))
        .map_or(expr.len(), |(i, _)| i);
    &expr[..end]
}

pub(super) fn strip_quotes(s: &str) -> &str {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
}

pub(super) fn normalize_space(s: &str, max_chars: usize) -> String {
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_chars(&joined, max_chars)
}

pub(super) fn truncate_chars(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Lines as editors count them: a trailing newline does not start a new line.
pub fn count_lines(source: &str) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = source.bytes().filter(|&b| b == b'\n').count();
    (newlines + usize::from(!source.ends_with('\n'))) as u32
}

/// A node's position among its parent's named children (comments skipped),
/// not counting the siblings whose `pattern` is the text `skip` (TypeScript's
/// `this:` parameter, which no call passes).
pub(in crate::lang) fn position_skipping(node: Node, skip: Option<&str>, source: &str) -> usize {
    let Some(parent) = node.parent() else {
        return 0;
    };
    let skipped = |n: &Node| {
        skip.is_some_and(|skip| {
            n.child_by_field_name("pattern")
                .and_then(|p| p.utf8_text(source.as_bytes()).ok())
                == Some(skip)
        })
    };
    let mut cursor = parent.walk();
    let position = parent
        .named_children(&mut cursor)
        .filter(|n| !n.is_extra() && (n.id() == node.id() || !skipped(n)))
        .position(|n| n.id() == node.id());
    position.unwrap_or(0)
}

/// A call's arguments as written: `name=value` for a keyword argument (a
/// node with `name` and `value` fields), `*` for a splat or spread.
pub(super) fn arguments_of(list: Node, source: &str) -> Vec<String> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|n| !n.is_extra())
        .take(MAX_ARGUMENTS)
        .map(|argument| {
            let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
            if argument.kind().contains("splat") || argument.kind().contains("spread") {
                return "*".to_string();
            }
            match (
                argument.child_by_field_name("name"),
                argument.child_by_field_name("value"),
            ) {
                (Some(name), Some(value)) => {
                    format!(
                        "{}={}",
                        text(name),
                        normalize_space(text(value), MAX_CALLEE_CHARS)
                    )
                }
                _ => normalize_space(text(argument), MAX_CALLEE_CHARS),
            }
        })
        .collect()
}
