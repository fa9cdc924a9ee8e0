//! One parse: the file (or a part of it) read as its language, or as the
//! language's fallback when that reads it better, and its matches turned
//! into facts.

use std::collections::{HashMap, HashSet};

use streaming_iterator::StreamingIterator;
use tree_sitter::{Parser, QueryCursor};

use super::captures::{
    dedup_imports, role_of, Captures, Collected, Matched, RawAssignment, RawCall, Role,
};
use super::facts::{Assignment, Call, FileFacts};
use super::nesting::{innermost, nest, qualify, Span};
use super::text::{first_identifier, last_identifier};
use crate::lang::{self, LanguageSpec};

/// The deepest syntax node a query match may start at (see `extract_part`).
pub const MAX_MATCH_DEPTH: u32 = 10_000;

/// What extraction needs to know of the repository a file is in.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The Rust crate the file belongs to (see [`lang::module_path_in`]).
    pub crate_name: Option<&'a str>,
    /// Whether the repository has files of the language's `fallback` (C++
    /// sources beside C headers). Without any, a file is tried as the
    /// fallback only when a line starts with one of its markers, not for
    /// syntax errors alone: the kernel's headers would each be parsed twice.
    pub fallback_present: bool,
}

impl<'a> Context<'a> {
    /// The context a repository's file of `spec` is read in, by the indexer
    /// and by `diff` alike: its Rust crate, and whether the repository has
    /// files of the language's fallback. `fallbacks` lists the languages
    /// present, space-separated, as the index records them; `None` (not
    /// recorded) counts every fallback as present.
    pub fn of_repository(
        spec: &LanguageSpec,
        crate_name: Option<&'a str>,
        fallbacks: Option<&str>,
    ) -> Context<'a> {
        let present = |present: &str| {
            spec.fallback
                .is_some_and(|f| present.split(' ').any(|l| l == f))
        };
        Context {
            crate_name,
            fallback_present: fallbacks.is_none_or(present),
        }
    }
}

impl Default for Context<'_> {
    fn default() -> Self {
        Context {
            crate_name: None,
            fallback_present: true,
        }
    }
}

/// The facts of `source`, or of the part of it at `range`: a part is parsed
/// on its own, with its nodes at their places in the whole text.
pub(super) fn extract_part(
    spec: &LanguageSpec,
    rel_path: &str,
    source: &str,
    parsed_text: &str,
    range: Option<tree_sitter::Range>,
    context: &Context,
) -> FileFacts {
    let crate_name = context.crate_name;
    let Some(tree) = parse(spec, parsed_text, range) else {
        return FileFacts {
            module: lang::module_path_in(spec, rel_path, crate_name),
            has_syntax_errors: true,
            ..FileFacts::default()
        };
    };
    let named = spec.name;
    let read = range.map_or(source, |r| &source[r.start_byte..r.end_byte]);
    let (spec, tree) = best_reading(spec, tree, read, parsed_text, range, context);
    let root = tree.root_node();
    let query = spec.query();
    let roles: Vec<Role> = query.capture_names().iter().map(|n| role_of(n)).collect();
    let mut collected = Collected::default();
    let mut cursor = QueryCursor::new();
    // Finding a node's parent walks down from the root, so each match at
    // depth d costs d: past this depth a file nested tens of thousands deep
    // would cost the square of its depth. Real code stays far above it.
    cursor.set_max_start_depth(Some(MAX_MATCH_DEPTH));
    let mut matches = cursor.matches(query, root, source.as_bytes());
    while let Some(m) = matches.next() {
        let matched = Matched {
            spec,
            query,
            source,
            pattern: m.pattern_index,
        };
        collected.add(&matched, &Captures::read(m, &roles));
    }
    let mut facts = facts_of(spec, rel_path, crate_name, collected);
    facts.has_syntax_errors = root.has_error();
    facts.read_as = (spec.name != named).then_some(spec.name);
    facts
}

/// A file may be another language's (a C++ `.h`): tried when this one
/// reads it with errors or a line starts with one of the other's markers.
/// Kept when it reads the file cleanly where this one does not, or, with
/// a marker, with no more errors (kernel headers say "namespace" and
/// "virtual" in their comments: markers count only at a line's start).
fn best_reading<'s>(
    spec: &'s LanguageSpec,
    tree: tree_sitter::Tree,
    read: &str,
    parsed_text: &str,
    range: Option<tree_sitter::Range>,
    context: &Context,
) -> (&'s LanguageSpec, tree_sitter::Tree) {
    let marked = !spec.fallback_markers.is_empty()
        && read.lines().any(|line| {
            let line = line.trim_start();
            spec.fallback_markers.iter().any(|m| line.starts_with(m))
        });
    let Some(other) = spec.fallback.and_then(lang::by_name) else {
        return (spec, tree);
    };
    if !(marked || context.fallback_present && tree.root_node().has_error()) {
        return (spec, tree);
    }
    match parse(other, parsed_text, range) {
        Some(second) => {
            let (theirs, ours) = (error_count(&second), error_count(&tree));
            if (theirs == 0 && ours > 0) || (marked && theirs <= ours) {
                (other, second)
            } else {
                (spec, tree)
            }
        }
        None => (spec, tree),
    }
}

/// The facts of what the matches collected: definitions nested and
/// qualified, calls and bindings placed in their innermost definition.
fn facts_of(
    spec: &LanguageSpec,
    rel_path: &str,
    crate_name: Option<&str>,
    mut collected: Collected,
) -> FileFacts {
    for (owner, base) in std::mem::take(&mut collected.bases_of) {
        if let Some(entry) = collected.scoped.get_mut(&owner) {
            if !entry.bases.contains(&base) {
                entry.bases.push(base);
            }
        }
    }
    let module = collected
        .package
        .take()
        .unwrap_or_else(|| lang::module_path_in(spec, rel_path, crate_name));
    let (definitions, spans) = qualify(spec, &module, nest(std::mem::take(&mut collected.scoped)));
    let calls = place_calls(collected.calls, &collected.assignments, &spans);
    let assignments = place_assignments(collected.assignments, &spans);
    FileFacts {
        module,
        definitions,
        imports: dedup_imports(spec, collected.imports),
        calls,
        assignments,
        ..FileFacts::default()
    }
}

/// Calls in their innermost definition, sorted, without the bare names
/// that are only calls when nothing in their scope binds them (Ruby's).
fn place_calls(raw: Vec<RawCall>, assignments: &[RawAssignment], spans: &[Span]) -> Vec<Call> {
    let bound: HashSet<(Option<usize>, &str)> = assignments
        .iter()
        .map(|(byte, _, name, _)| (innermost(spans, *byte), name.as_str()))
        .collect();
    let mut calls: Vec<Call> = raw
        .into_iter()
        .map(|raw| {
            let enclosing = innermost(spans, raw.start_byte);
            let call = Call {
                line: raw.line,
                callee_name: last_identifier(&raw.callee).to_string(),
                callee_head: first_identifier(&raw.callee).to_string(),
                callee: raw.callee,
                enclosing,
                arguments: raw.arguments,
            };
            (call, raw.unless_bound)
        })
        .filter(|(call, unless_bound)| {
            !unless_bound || !bound.contains(&(call.enclosing, call.callee.as_str()))
        })
        .map(|(call, _)| call)
        .collect();
    calls.sort_by(|a, b| (a.line, &a.callee).cmp(&(b.line, &b.callee)));
    calls.dedup();
    calls
}

/// Bindings in their innermost definition, sorted.
fn place_assignments(raw: Vec<RawAssignment>, spans: &[Span]) -> Vec<Assignment> {
    let mut assignments: Vec<Assignment> = raw
        .into_iter()
        .map(|(byte, line, name, value)| Assignment {
            line,
            name,
            value,
            enclosing: innermost(spans, byte),
        })
        .collect();
    assignments.sort_by(|a, b| (a.line, &a.name).cmp(&(b.line, &b.name)));
    assignments.dedup();
    assignments
}

thread_local! {
    /// One parser per language per thread, reused across files.
    static PARSERS: std::cell::RefCell<HashMap<&'static str, Parser>> = Default::default();
}

/// Parses `source`, or only its bytes in `range` (the tree's positions are
/// still the whole text's).
pub(super) fn parse(
    spec: &LanguageSpec,
    source: &str,
    range: Option<tree_sitter::Range>,
) -> Option<tree_sitter::Tree> {
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = parsers.entry(spec.name).or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&spec.grammar())
                .expect("grammar ABI is supported");
            parser
        });
        // No ranges: the whole text. A range a parser cannot take (never,
        // for one range in the text) leaves the part unread.
        parser.set_included_ranges(range.as_slice()).ok()?;
        parser.parse(source, None)
    })
}

/// How many error and missing nodes a tree has.
pub(super) fn error_count(tree: &tree_sitter::Tree) -> usize {
    let mut cursor = tree.walk();
    let mut count = 0;
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        // Descend only into subtrees that hold errors.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}
