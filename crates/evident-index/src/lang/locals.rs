//! Parameters and locals at a position, read from the file's tree when
//! `def` asks: the index stores no row for them (they matter for
//! go-to-definition, not for search or the call graph).
//!
//! The language's `*-locals.scm` query names scopes (`@scope`), binding
//! names (`@local`) and names declared to live outside the scope
//! (`@global`). The rule is language-neutral: the innermost scope around
//! the position that binds the name answers with every binding of it there
//! (a name bound in two branches answers both; hoisting needs no order).

use streaming_iterator::StreamingIterator;
use tree_sitter::{Parser, QueryCursor};

use crate::lang::LanguageSpec;

/// What the scopes around a position say about a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// Bound in the innermost scope that binds it, at these lines (1-based).
    Bound(Vec<u32>),
    /// Not bound in any scope around the position (or declared `global`):
    /// a module-level name, an import, or nothing.
    Outside,
}

/// The local bindings of `word` visible at `line:col` (1-based) in `source`.
pub fn bindings_at(spec: &LanguageSpec, source: &str, line: u32, col: u32, word: &str) -> Local {
    let Some(query) = spec.locals_query() else {
        return Local::Outside;
    };
    let mut parser = Parser::new();
    if parser.set_language(&spec.grammar()).is_err() {
        return Local::Outside;
    }
    let Some(tree) = parser.parse(super::shown::parser_text(spec, source).as_ref(), None) else {
        return Local::Outside;
    };
    let Some(at) = byte_of(source, line, col) else {
        return Local::Outside;
    };
    let bytes = source.as_bytes();
    let names = query.capture_names();
    // Scopes as byte ranges; bindings and declarations of `word` by position.
    let mut scopes: Vec<(usize, usize)> = Vec::new();
    let mut locals: Vec<(usize, u32)> = Vec::new();
    let mut globals: Vec<usize> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), bytes);
    while let Some(m) = matches.next() {
        for capture in m.captures() {
            let node = capture.node;
            match names[capture.index as usize] {
                "scope" => scopes.push((node.start_byte(), node.end_byte())),
                role @ ("local" | "global") if node.utf8_text(bytes) == Ok(word) => {
                    if role == "local" {
                        locals.push((node.start_byte(), node.start_position().row as u32 + 1));
                    } else {
                        globals.push(node.start_byte());
                    }
                }
                _ => {}
            }
        }
    }
    scopes.sort_unstable();
    scopes.dedup();
    // The innermost scope holding a byte: the latest-starting one that contains it.
    let innermost = |byte: usize| {
        scopes
            .iter()
            .filter(|(s, e)| *s <= byte && byte < *e)
            .max_by_key(|(s, e)| (*s, std::cmp::Reverse(*e)))
            .copied()
    };
    let mut around: Vec<(usize, usize)> = scopes
        .iter()
        .filter(|(s, e)| *s <= at && at < *e)
        .copied()
        .collect();
    around.sort_by_key(|(s, e)| (std::cmp::Reverse(*s), *e));
    for scope in around {
        if globals.iter().any(|g| innermost(*g) == Some(scope)) {
            return Local::Outside;
        }
        let mut lines: Vec<u32> = locals
            .iter()
            .filter(|(byte, _)| innermost(*byte) == Some(scope))
            .map(|(_, line)| *line)
            .collect();
        if !lines.is_empty() {
            lines.sort_unstable();
            lines.dedup();
            return Local::Bound(lines);
        }
    }
    Local::Outside
}

/// Whether the identifier at `line:col` (1-based) is the name of a keyword
/// argument: a node with `name` and `value` fields inside a call's argument
/// list (`f(encoding=e)`, Kotlin's `f(name = v)`), the form
/// `extract::text::arguments_of` stores as `name=value`.
pub fn is_keyword_argument(spec: &LanguageSpec, source: &str, line: u32, col: u32) -> bool {
    let mut parser = Parser::new();
    if parser.set_language(&spec.grammar()).is_err() {
        return false;
    }
    let shown = super::shown::parser_text(spec, source);
    let (Some(tree), Some(at)) = (
        parser.parse(shown.as_ref(), None),
        byte_of(source, line, col),
    ) else {
        return false;
    };
    let Some(mut node) = tree.root_node().descendant_for_byte_range(at, at) else {
        return false;
    };
    // The name may be wrapped (`value_argument_label > identifier`).
    for _ in 0..3 {
        let Some(parent) = node.parent() else {
            return false;
        };
        let names_it = parent
            .child_by_field_name("name")
            .is_some_and(|name| name.byte_range().contains(&at));
        if names_it && parent.child_by_field_name("value").is_some() {
            return parent
                .parent()
                .is_some_and(|list| list.kind().contains("argument"));
        }
        node = parent;
    }
    false
}

/// The byte offset of 1-based `line:col` (col counted in characters).
pub(super) fn byte_of(source: &str, line: u32, col: u32) -> Option<usize> {
    let start: usize = source
        .split_inclusive('\n')
        .take(line.checked_sub(1)? as usize)
        .map(str::len)
        .sum();
    let text = source[start..].lines().next()?;
    let offset = text
        .char_indices()
        .nth(col.checked_sub(1)? as usize)
        .map(|(i, _)| i)?;
    Some(start + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> &'static LanguageSpec {
        crate::lang::by_name("python").unwrap()
    }

    #[test]
    fn keyword_arguments_by_syntax() {
        let source = "x = 1\nf(x, encoding=x)\nif x == 2:\n    g(a=1)\n";
        assert!(is_keyword_argument(python(), source, 2, 6));
        assert!(!is_keyword_argument(python(), source, 2, 3));
        assert!(!is_keyword_argument(python(), source, 2, 15));
        assert!(!is_keyword_argument(python(), source, 1, 1));
        assert!(!is_keyword_argument(python(), source, 3, 4));
        assert!(is_keyword_argument(python(), source, 4, 7));
    }

    #[test]
    fn a_parameter_and_a_local_in_two_branches() {
        let source = "def f(a, flag):\n    if flag:\n        x = 1\n    else:\n        x = 2\n    return a + x\n";
        assert_eq!(
            bindings_at(python(), source, 6, 12, "a"),
            Local::Bound(vec![1])
        );
        assert_eq!(
            bindings_at(python(), source, 6, 16, "x"),
            Local::Bound(vec![3, 5])
        );
    }

    #[test]
    fn module_names_and_globals_are_outside() {
        let source =
            "N = 1\ndef f():\n    global N\n    N = 2\n    return N\ndef g():\n    return N\n";
        assert_eq!(bindings_at(python(), source, 5, 12, "N"), Local::Outside);
        assert_eq!(bindings_at(python(), source, 7, 12, "N"), Local::Outside);
    }

    #[test]
    fn an_enclosing_function_s_local_reaches_a_nested_one() {
        let source =
            "def outer():\n    v = 1\n    def inner():\n        return v\n    return inner\n";
        assert_eq!(
            bindings_at(python(), source, 4, 16, "v"),
            Local::Bound(vec![2])
        );
    }

    #[test]
    fn every_language_s_locals_query_compiles() {
        for spec in crate::lang::LANGUAGES {
            let _ = spec.locals_query();
        }
    }
}
