//! Parameters and locals at a position, read from the file's tree when
//! `def` asks: the index stores no row for them (they matter for
//! go-to-definition, not for search or the call graph).
//!
//! The language's `*-locals.scm` query names scopes (`@scope`), binding
//! names (`@local`) and names declared to live outside the scope
//! (`@global`). The rule is language-neutral: the innermost scope around
//! the position that binds the name answers with every binding of it there
//! (a name bound in two branches answers both; hoisting needs no order).
//! A binding marked `@local.hoisted` (or `@local.implicit`, where nothing
//! declares the name) belongs to its innermost `@scope.function`, not its
//! block; a `@scope.class` is seen only from code directly in it; what is
//! bound outside every scope is reported as the file's top level.

use streaming_iterator::StreamingIterator;
use tree_sitter::{Parser, QueryCursor};

use crate::lang::LanguageSpec;

/// What the scopes around a position say about a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// Bound in the innermost scope that binds it, at these lines (1-based).
    Bound(Vec<u32>),
    /// Not bound in any scope around the position (or declared `global`):
    /// a module-level name, an import, or nothing. `top_level` are the lines
    /// where the file binds the name outside every scope (`for x in ...`,
    /// `except E as e`, `with f() as x` at a module's top level), which a
    /// module's definitions do not hold.
    Outside { top_level: Vec<u32> },
}

impl Local {
    /// Outside, with no top-level binding known.
    pub const OUTSIDE: Local = Local::Outside {
        top_level: Vec::new(),
    };
}

/// The local bindings of `word` visible at `line:col` (1-based) in `source`.
pub fn bindings_at(spec: &LanguageSpec, source: &str, line: u32, col: u32, word: &str) -> Local {
    let Some(query) = spec.locals_query() else {
        return Local::OUTSIDE;
    };
    let mut parser = Parser::new();
    if parser.set_language(&spec.grammar()).is_err() {
        return Local::OUTSIDE;
    }
    let Some(tree) = parser.parse(super::shown::parser_text(spec, source).as_ref(), None) else {
        return Local::OUTSIDE;
    };
    let Some(at) = byte_of(source, line, col) else {
        return Local::OUTSIDE;
    };
    let Found {
        scopes,
        functions,
        classes,
        locals,
        globals,
    } = found(query, &tree, source.as_bytes(), word);
    // The innermost scope holding a byte: the latest-starting one that contains it.
    let innermost_of = |scopes: &[(usize, usize)], byte: usize| {
        scopes
            .iter()
            .filter(|(s, e)| *s <= byte && byte < *e)
            .max_by_key(|(s, e)| (*s, std::cmp::Reverse(*e)))
            .copied()
    };
    let innermost = |byte: usize| innermost_of(&scopes, byte);
    // A hoisted or implicit binding (JavaScript's `var`, an undeclared
    // name's assignment) belongs to its function, not its block.
    let scope_of = |b: &Binding| match b.how {
        How::Scoped | How::TypeLevel => innermost(b.byte),
        How::Hoisted | How::Implicit => innermost_of(&functions, b.byte),
    };
    // An assignment binds implicitly only where no scope around it binds
    // the name (it assigns that binding otherwise).
    let declared = |b: &Binding| {
        locals.iter().any(|d| {
            d.how != How::Implicit && scope_of(d).is_none_or(|(s, e)| s <= b.byte && b.byte < e)
        })
    };
    let locals: Vec<&Binding> = locals
        .iter()
        .filter(|b| b.how != How::Implicit || !declared(b))
        .collect();
    let mut around: Vec<(usize, usize)> = scopes
        .iter()
        .filter(|(s, e)| *s <= at && at < *e)
        .copied()
        .collect();
    around.sort_by_key(|(s, e)| (std::cmp::Reverse(*s), *e));
    // A class body's names are seen from the body itself, not from the
    // functions nested in it (Python's class scope); like top-level names,
    // they answer only where no definition does.
    for (depth, scope) in around.into_iter().enumerate() {
        let class = classes.contains(&scope);
        if class && depth > 0 {
            continue;
        }
        if globals.iter().any(|g| innermost(*g) == Some(scope)) {
            return outside(&locals, scope_of);
        }
        let mut lines: Vec<u32> = locals
            .iter()
            .filter(|b| scope_of(b) == Some(scope))
            .map(|b| b.line)
            .collect();
        if !lines.is_empty() {
            lines.sort_unstable();
            lines.dedup();
            if class {
                return Local::Outside { top_level: lines };
            }
            return Local::Bound(lines);
        }
    }
    outside(&locals, scope_of)
}

/// What the locals query finds in a file: scopes as byte ranges (all of
/// them; functions and class bodies again), and the bindings and `global`
/// declarations of one name.
struct Found {
    scopes: Vec<(usize, usize)>,
    functions: Vec<(usize, usize)>,
    classes: Vec<(usize, usize)>,
    locals: Vec<Binding>,
    globals: Vec<usize>,
}

/// Runs the locals query over `tree`, keeping the bindings of `word`.
fn found(query: &tree_sitter::Query, tree: &tree_sitter::Tree, bytes: &[u8], word: &str) -> Found {
    let names = query.capture_names();
    let mut f = Found {
        scopes: Vec::new(),
        functions: Vec::new(),
        classes: Vec::new(),
        locals: Vec::new(),
        globals: Vec::new(),
    };
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), bytes);
    while let Some(m) = matches.next() {
        for capture in m.captures() {
            let node = capture.node;
            let range = (node.start_byte(), node.end_byte());
            let named = node.utf8_text(bytes) == Ok(word);
            let role = names[capture.index as usize];
            match role {
                "scope" => f.scopes.push(range),
                "scope.function" => f.functions.push(range),
                "scope.class" => f.classes.push(range),
                "local" | "local.hoisted" | "local.implicit" | "local.type" if named => {
                    f.locals.push(Binding {
                        byte: node.start_byte(),
                        line: node.start_position().row as u32 + 1,
                        how: match role {
                            "local.hoisted" => How::Hoisted,
                            "local.implicit" => How::Implicit,
                            "local.type" => How::TypeLevel,
                            _ => How::Scoped,
                        },
                    })
                }
                "global" if named => f.globals.push(node.start_byte()),
                _ => {}
            }
        }
    }
    f.scopes.extend(f.functions.iter().chain(&f.classes));
    for list in [&mut f.scopes, &mut f.functions] {
        list.sort_unstable();
        list.dedup();
    }
    f
}

/// One binding of the name: where it is, and which scope it belongs to.
struct Binding {
    byte: usize,
    line: u32,
    how: How,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    /// `@local`: the innermost scope around it.
    Scoped,
    /// `@local.hoisted`: the innermost function around it (JavaScript's `var`).
    Hoisted,
    /// `@local.implicit`: the innermost function around it, where nothing
    /// declares the name (an assignment to an undeclared name binds it; in
    /// sloppy-mode JavaScript, as a global, which is not followed out of
    /// the function).
    Implicit,
    /// `@local.type`: as `Scoped`, but never the file's top level (a type
    /// parameter or an `infer` name outside every scope the query knows
    /// belongs to a declaration it does not scope, not to the file).
    TypeLevel,
}

/// Outside every scope around the position, with the file's top-level
/// bindings of the name.
fn outside(locals: &[&Binding], scope_of: impl Fn(&Binding) -> Option<(usize, usize)>) -> Local {
    let mut top_level: Vec<u32> = locals
        .iter()
        .filter(|b| b.how != How::TypeLevel && scope_of(b).is_none())
        .map(|b| b.line)
        .collect();
    top_level.sort_unstable();
    top_level.dedup();
    Local::Outside { top_level }
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
        let top = Local::Outside { top_level: vec![1] };
        assert_eq!(bindings_at(python(), source, 5, 12, "N"), top);
        assert_eq!(bindings_at(python(), source, 7, 12, "N"), top);
    }

    #[test]
    fn names_bound_outside_every_scope_are_top_level() {
        let source = "try:\n    pass\nexcept OSError as e:\n    x = e\nwith open(p) as f:\n    pass\ndef g():\n    return f\n";
        let top = |lines: Vec<u32>| Local::Outside { top_level: lines };
        assert_eq!(bindings_at(python(), source, 4, 9, "e"), top(vec![3]));
        assert_eq!(bindings_at(python(), source, 8, 12, "f"), top(vec![5]));
        assert_eq!(bindings_at(python(), source, 8, 12, "open"), Local::OUTSIDE);
    }

    #[test]
    fn a_class_body_binds_for_itself_only() {
        let source = "class G:\n    if d:\n        e = 1\n    print(e)\n    def m(self):\n        return e\nprint(e)\n";
        let top = |lines: Vec<u32>| Local::Outside { top_level: lines };
        assert_eq!(bindings_at(python(), source, 4, 11, "e"), top(vec![3]));
        assert_eq!(bindings_at(python(), source, 6, 16, "e"), Local::OUTSIDE);
        assert_eq!(bindings_at(python(), source, 7, 7, "e"), Local::OUTSIDE);
    }

    #[test]
    fn a_var_belongs_to_its_function_not_its_block() {
        let js = crate::lang::by_name("javascript").unwrap();
        let source = "function f() {\n  if (a) { var w = 1; let v = 2; }\n  return w + v;\n}\ntry { var y = 1; } finally {}\ny;\n";
        assert_eq!(bindings_at(js, source, 3, 10, "w"), Local::Bound(vec![2]));
        assert_eq!(bindings_at(js, source, 3, 14, "v"), Local::OUTSIDE);
        let top = Local::Outside { top_level: vec![5] };
        assert_eq!(bindings_at(js, source, 6, 1, "y"), top);
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
