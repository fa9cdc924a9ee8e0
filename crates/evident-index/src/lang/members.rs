//! Object keys at a position, read from the file's tree when `def` asks: a
//! key (`{ a: 1 }`, `const { a } = value`) names a member of what its
//! object is, which the object's context says.
//!
//! The language's `*-locals.scm` query marks keys (`@member.key`), the
//! objects and patterns that hold them (`@member.literal`) and, in the same
//! match as a literal, where its members come from: a value it destructures
//! or is assigned to (`@member.object`), a declared type (`@member.type`), a
//! call it is an argument of (`@member.callee`) or the key of an enclosing
//! object (`@member.outer`). The rule is language-neutral: the key under the
//! position, then the nearest literal around it that has a context.

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Parser, QueryCursor};

use crate::lang::extract::position_skipping;
use crate::lang::LanguageSpec;

/// Where the members of a key's object come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// The value of this expression (`this`, `config`, `this.options`).
    Expression(String),
    /// An instance of this written type.
    Type(String),
    /// The parameter at `position` (0-based) of the callee written `callee`,
    /// called on 1-based `line`.
    Argument {
        callee: String,
        line: u32,
        position: usize,
    },
    /// The type of the member the enclosing key at 1-based `line:col` names.
    Key { line: u32, col: u32 },
}

/// An object key under a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// Where its object's members come from.
    /// `None`: nothing around the object says what it is.
    pub owner: Option<Owner>,
    /// Written as a name alone (`{ a }`): it also binds or reads `a`.
    pub shorthand: bool,
    /// The key itself defines the member, unless a known type declares it
    /// (`{ a: 1 }`, an inline type's `{ a: T }`; not a destructured key).
    pub defines: bool,
}

/// Whether the language's locals query marks object keys at all (so that
/// `def` reads no tree for keys where none can be).
pub fn reads_keys(spec: &LanguageSpec) -> bool {
    spec.locals_query()
        .is_some_and(|q| q.capture_index_for_name("member.key").is_some())
}

/// The key under `line:col` (1-based) when it is `word`, and where its
/// object's members come from.
pub fn key_at(spec: &LanguageSpec, source: &str, line: u32, col: u32, word: &str) -> Option<Key> {
    if !reads_keys(spec) {
        return None;
    }
    let query = spec.locals_query()?;
    let mut parser = Parser::new();
    parser.set_language(&spec.grammar()).ok()?;
    let tree = parser.parse(super::shown::parser_text(spec, source).as_ref(), None)?;
    let at = super::locals::byte_of(source, line, col)?;
    let bytes = source.as_bytes();
    let names = query.capture_names();
    let (mut key, mut shorthand, mut defines): (Option<Node>, bool, bool) = (None, false, false);
    // Each literal's context, ranked: see `rank`.
    let mut contexts: Vec<(usize, Owner, (u8, usize))> = Vec::new();
    // Expressions that pass their context to what they hold.
    let mut passes: Vec<usize> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), bytes);
    while let Some(m) = matches.next() {
        let (mut literal, mut owner, mut width) = (None, None, 0);
        for capture in m.captures() {
            let node = capture.node;
            let text = || node.utf8_text(bytes).unwrap_or_default().to_string();
            match names[capture.index as usize] {
                "member.key" if node.byte_range().contains(&at) && text() == word => {
                    key = Some(node);
                }
                "member.shorthand" if node.byte_range().contains(&at) => shorthand = true,
                "member.defines" if node.byte_range().contains(&at) => defines = true,
                "member.literal" => literal = Some(node),
                "member.passes" => passes.push(node.id()),
                "member.object" => {
                    width = node.byte_range().len();
                    owner = Some(Owner::Expression(text()));
                }
                "member.type" => owner = Some(Owner::Type(text())),
                "member.callee" => {
                    owner = Some(Owner::Argument {
                        callee: text(),
                        line: node.end_position().row as u32 + 1,
                        position: 0,
                    })
                }
                "member.outer" => owner = Some(outer_key(source, node)),
                _ => {}
            }
        }
        if let (Some(literal), Some(mut owner)) = (literal, owner) {
            if let Owner::Argument { position, .. } = &mut owner {
                *position = position_skipping(literal, None, source);
            }
            let rank = rank(&owner, width);
            contexts.push((literal.id(), owner, rank));
        }
    }
    contexts.sort_by_key(|(_, _, rank)| *rank);
    // Key → its pair (or pattern entry) → the literal; then outward only
    // from what its parent passes a context to.
    let key = key?;
    let mut node = key.parent();
    let mut owner = None;
    let mut steps = 0;
    while let Some(here) = node {
        if let Some((_, found, _)) = contexts.iter().find(|(id, ..)| *id == here.id()) {
            owner = Some(found.clone());
            break;
        }
        if steps >= 1 && !passes.contains(&here.id()) {
            break;
        }
        steps += 1;
        node = here.parent();
    }
    Some(Key {
        owner,
        shorthand,
        defines,
    })
}

/// Which of several contexts of one literal decides: a declared type, then
/// a call's parameter, an enclosing key, and the narrowest expression last
/// (`options` over `options ?? {}`).
fn rank(owner: &Owner, width: usize) -> (u8, usize) {
    match owner {
        Owner::Type(_) => (0, 0),
        Owner::Argument { .. } => (1, 0),
        Owner::Key { .. } => (2, 0),
        Owner::Expression(_) => (3, width),
    }
}

/// The 1-based position of an enclosing key, as `def` takes it.
fn outer_key(source: &str, node: Node) -> Owner {
    let start = node.start_position();
    let line_start = source
        .split_inclusive('\n')
        .take(start.row)
        .map(str::len)
        .sum::<usize>();
    let col = source[line_start..node.start_byte()].chars().count() as u32 + 1;
    Owner::Key {
        line: start.row as u32 + 1,
        col,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typescript() -> &'static LanguageSpec {
        crate::lang::by_name("typescript").unwrap()
    }

    fn owner(source: &str, line: u32, col: u32, word: &str) -> Option<Owner> {
        key_at(typescript(), source, line, col, word).and_then(|k| k.owner)
    }

    #[test]
    fn a_destructured_key_names_a_member_of_the_value() {
        let source = "function f() {\n  const { closed, x: y } = this.inner;\n}\n";
        let inner = Owner::Expression("this.inner".into());
        let closed = key_at(typescript(), source, 2, 11, "closed").unwrap();
        let closed = (closed.owner, closed.shorthand, closed.defines);
        assert_eq!(closed, (Some(inner.clone()), true, false));
        let x = key_at(typescript(), source, 2, 19, "x").unwrap();
        assert_eq!(
            (x.owner, x.shorthand, x.defines),
            (Some(inner), false, false)
        );
        // The local the entry binds is no key.
        assert_eq!(owner(source, 2, 22, "y"), None);
    }

    #[test]
    fn a_literal_key_names_a_member_of_its_declared_type() {
        let source = "const config: Config = {\n  retries: 1,\n  nested: { depth: 2 },\n};\n";
        let ty = Some(Owner::Type("Config".into()));
        assert_eq!(owner(source, 2, 3, "retries"), ty);
        assert_eq!(
            owner(source, 3, 13, "depth"),
            Some(Owner::Key { line: 3, col: 3 })
        );
        // A value is no key.
        assert_eq!(owner(source, 2, 12, "1"), None);
    }

    #[test]
    fn a_declared_type_or_the_narrowest_value_decides() {
        let source = "const { a } = options ?? {};\nconst { b } = (x ? y : z) as Config;\n";
        assert_eq!(
            owner(source, 1, 9, "a"),
            Some(Owner::Expression("options".into()))
        );
        assert_eq!(owner(source, 2, 9, "b"), Some(Owner::Type("Config".into())));
    }

    #[test]
    fn a_context_reaches_a_literal_through_parentheses_and_branches() {
        let source = "const t = (c ? { first: c } : { each: 1 }) as Config;\n\
                      run(opts || { retries: 1 });\nconst u = [{ free: 1 }] as Config;\n";
        let ty = Some(Owner::Type("Config".into()));
        assert_eq!(owner(source, 1, 18, "first"), ty);
        assert_eq!(owner(source, 1, 33, "each"), ty);
        let argument = Owner::Argument {
            callee: "run".into(),
            line: 2,
            position: 0,
        };
        assert_eq!(owner(source, 2, 15, "retries"), Some(argument));
        // An array element is no branch: nothing is written for it here.
        assert_eq!(owner(source, 3, 14, "free"), None);
    }

    #[test]
    fn an_argument_key_names_a_member_of_the_parameter() {
        let source = "run(a, /* c */ { retries: 1 });\nconst x = { free: 1 };\n";
        let argument = Owner::Argument {
            callee: "run".into(),
            line: 1,
            position: 1,
        };
        assert_eq!(owner(source, 1, 18, "retries"), Some(argument));
        // A literal nothing types: its key defines the member.
        let free = key_at(typescript(), source, 2, 13, "free").unwrap();
        assert_eq!((free.owner, free.defines), (None, true));
    }
}
