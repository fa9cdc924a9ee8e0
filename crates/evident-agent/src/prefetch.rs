//! Evidence first: before the first model call, a deterministic look at the
//! question. Identifiers and paths in it become `find_symbol`/`read_evidence`
//! lookups; a question shape with an obvious tool ("who imports X", "who
//! calls X", "what breaks if X changes", "where is X defined", "what did the
//! diff touch") gets that tool; other questions get a short search. The
//! session runs the planned calls through the same validation as the model's
//! and puts their results in the first prompt, so a small model often needs
//! one call: to answer.
//!
//! This module only plans: it reads the index to tell names that exist from
//! English words, and never runs a tool itself.

use evident_index::{Index, SymbolQuery};
use serde_json::{json, Map, Value};

/// What kind of question it is, by its wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Importers,
    Callers,
    Impact,
    Definition,
    Diff,
    Docs,
    Search,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Importers => "importers",
            Shape::Callers => "callers",
            Shape::Impact => "impact",
            Shape::Definition => "definition",
            Shape::Diff => "diff",
            Shape::Docs => "docs",
            Shape::Search => "search",
        }
    }

    /// The tool the shape names, whose result is the answer's evidence.
    fn tool(self) -> Option<&'static str> {
        match self {
            Shape::Importers => Some("find_importers"),
            Shape::Callers => Some("get_callers"),
            Shape::Impact => Some("analyze_impact"),
            Shape::Definition => Some("find_symbol"),
            Shape::Diff => Some("read_git_diff"),
            Shape::Docs | Shape::Search => None,
        }
    }

    /// The tools beyond the core set that this shape needs offered.
    pub fn extra_tools(self) -> &'static [&'static str] {
        match self {
            Shape::Diff => &["read_git_diff"],
            Shape::Docs => &["list_sources", "read_source"],
            _ => &[],
        }
    }
}

/// The calls to run before the model is asked.
#[derive(Debug, Clone)]
pub struct Plan {
    pub shape: Shape,
    pub calls: Vec<(&'static str, Map<String, Value>)>,
    /// `calls[0]` is the tool the shape names (`find_importers` for "who
    /// imports X"): when it finds something, its result is the answer's
    /// evidence, and the model is first asked to answer without tools.
    pub answering: bool,
}

/// The most calls a plan makes (each result takes prompt space).
const MAX_CALLS: usize = 3;

/// Words that say what is asked, never which symbol it is about.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "all",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "breaks",
    "break",
    "by",
    "call",
    "called",
    "callers",
    "calls",
    "can",
    "change",
    "changed",
    "changes",
    "changing",
    "class",
    "classes",
    "code",
    "could",
    "declared",
    "define",
    "defined",
    "defines",
    "definition",
    "depend",
    "depends",
    "diff",
    "do",
    "does",
    "file",
    "files",
    "find",
    "for",
    "from",
    "function",
    "functions",
    "get",
    "has",
    "have",
    "how",
    "i",
    "if",
    "implement",
    "implemented",
    "import",
    "imported",
    "importers",
    "imports",
    "in",
    "invoke",
    "invokes",
    "is",
    "it",
    "its",
    "list",
    "me",
    "method",
    "methods",
    "module",
    "modify",
    "my",
    "name",
    "of",
    "on",
    "or",
    "repository",
    "return",
    "returns",
    "show",
    "tell",
    "that",
    "the",
    "them",
    "there",
    "this",
    "to",
    "type",
    "use",
    "used",
    "uses",
    "using",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "with",
    "would",
    "you",
];

/// Plans the lookups for `question`. Without an index (none built yet) the
/// plan is a search alone.
pub fn plan(question: &str, index: Option<&Index>) -> Plan {
    let lower = question.to_lowercase();
    let shape = shape_of(&lower);
    let tokens = tokens(question);
    let mut calls: Vec<(&'static str, Map<String, Value>)> = Vec::new();
    let exists = |name: &str| {
        index.is_some_and(|index| {
            let exact = SymbolQuery {
                exact: true,
                limit: Some(1),
                ..Default::default()
            };
            index
                .symbols(name, &exact)
                .is_ok_and(|found| !found.is_empty())
        })
    };
    // Names the index knows, the ones that look like code first.
    let mut names: Vec<&Token> = tokens
        .iter()
        .filter(|t| t.identifier && (t.strong || !is_stopword(&t.text)))
        .filter(|t| exists(&t.text))
        .collect();
    names.sort_by_key(|t| !t.strong);
    let subject = names.first().map(|t| t.text.clone());
    match shape {
        Shape::Importers => {
            let imported = tokens
                .iter()
                .filter(|t| t.strong || (t.identifier && !is_stopword(&t.text)))
                .find(|t| {
                    index.is_some_and(|index| {
                        index
                            .importers(&t.text)
                            .is_ok_and(|sites| !sites.is_empty())
                    })
                });
            if let Some(module) = imported {
                calls.push(("find_importers", args(json!({"module": module.text}))));
            }
        }
        Shape::Callers => {
            if let Some(s) = &subject {
                calls.push(("get_callers", args(json!({"symbol": s}))));
            }
        }
        Shape::Impact => {
            if let Some(s) = &subject {
                calls.push(("analyze_impact", args(json!({"symbol": s}))));
            }
        }
        Shape::Definition => {
            if let Some(s) = &subject {
                calls.push(("find_symbol", args(json!({"name": s}))));
            }
        }
        Shape::Diff => calls.push(("read_git_diff", Map::new())),
        Shape::Docs => calls.push(("list_sources", Map::new())),
        Shape::Search => {}
    }
    // Paths named in the question: their lines.
    for token in tokens.iter().filter(|t| t.path) {
        let (path, line) = match token.text.rsplit_once(':') {
            Some((p, l)) if l.parse::<u32>().is_ok() => (p, l.parse::<u32>().unwrap_or(1)),
            _ => (token.text.as_str(), 1),
        };
        let readable = index.is_some_and(|index| index.read(path, 1, 1).is_ok());
        if readable && calls.len() < MAX_CALLS {
            let start = line.saturating_sub(10).max(1);
            calls.push((
                "read_evidence",
                args(json!({"path": path, "start_line": start, "end_line": start + 59})),
            ));
        }
    }
    // Other names the question mentions: where they are defined.
    for name in &names {
        let already = calls
            .iter()
            .any(|(_, a)| a.values().any(|v| v.as_str() == Some(name.text.as_str())));
        if !already && name.strong && calls.len() < MAX_CALLS - 1 {
            calls.push(("find_symbol", args(json!({"name": name.text}))));
        }
    }
    // Nothing obvious to look up, or a question about meaning: a short search.
    if calls.is_empty() || matches!(shape, Shape::Search | Shape::Docs) {
        let words: Vec<&str> = tokens
            .iter()
            .filter(|t| t.strong || !is_stopword(&t.text))
            .map(|t| t.text.as_str())
            .collect();
        if !words.is_empty() && calls.len() < MAX_CALLS {
            let query: String = words.join(" ").chars().take(200).collect();
            calls.push(("search_code", args(json!({"query": query, "limit": 4}))));
        }
    }
    let answering = shape.tool().is_some() && calls.first().map(|(name, _)| *name) == shape.tool();
    calls.truncate(MAX_CALLS);
    Plan {
        shape,
        calls,
        answering,
    }
}

fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word.to_lowercase().as_str())
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The shape a question's wording names; the first match wins, so "what
/// breaks if I change X" is impact, not a diff.
fn shape_of(lower: &str) -> Shape {
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["import"]) {
        Shape::Importers
    } else if has(&[
        "break",
        "impact",
        "affected",
        "affects",
        "depends on",
        "depend on",
        "if i change",
        "if i modify",
        "if i rename",
        "if we change",
    ]) {
        Shape::Impact
    } else if has(&[
        "diff",
        "uncommitted",
        "staged",
        "working tree",
        "did i change",
        "did the change",
        "changes i made",
        "did this change",
    ]) {
        Shape::Diff
    } else if has(&["call", "invoke", "who uses", "used by", "uses of"]) {
        Shape::Callers
    } else if has(&[
        "documentation",
        "the docs",
        " docs",
        "readme",
        "document",
        "guide",
    ]) {
        Shape::Docs
    } else if has(&[
        "where is",
        "where are",
        "defined",
        "definition",
        "declared",
        "which class",
        "which file",
        "signature",
    ]) {
        Shape::Definition
    } else {
        Shape::Search
    }
}

/// A word of the question.
#[derive(Debug)]
struct Token {
    text: String,
    /// Could be a name in code.
    identifier: bool,
    /// Looks like code, not English: quoted in backticks, or with `_`, `.`,
    /// `::`, `()` or an inner capital.
    strong: bool,
    /// Looks like a file path (`src/a.py`, `lib.rs`, `a.py:12`).
    path: bool,
}

const CODE_EXTENSIONS: &[&str] = &[
    ".py", ".rs", ".js", ".jsx", ".ts", ".tsx", ".go", ".java", ".md", ".rst", ".txt", ".toml",
    ".json", ".yaml", ".yml", ".cfg", ".adoc",
];

fn tokens(question: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    for (i, piece) in question.split('`').enumerate() {
        // Odd pieces were between backticks.
        let in_backticks = i % 2 == 1;
        for raw in piece.split(|c: char| c.is_whitespace() || ",;()[]{}\"'?!<>".contains(c)) {
            let text = raw.trim_matches(|c: char| ".:".contains(c));
            let text = text.trim_end_matches("()");
            if text.is_empty() || out.iter().any(|t| t.text == text) {
                continue;
            }
            let lower = text.to_lowercase();
            let path = text.contains('/')
                || CODE_EXTENSIONS
                    .iter()
                    .any(|ext| lower.split(':').next().is_some_and(|p| p.ends_with(ext)));
            let identifier = is_identifier(text);
            let inner_capital = text.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && text.chars().any(|c| c.is_ascii_lowercase());
            let strong = identifier
                && (in_backticks
                    || text.contains('_')
                    || text.contains('.')
                    || text.contains("::")
                    || raw.ends_with("()")
                    || inner_capital);
            if identifier || path {
                out.push(Token {
                    text: text.to_string(),
                    identifier: identifier && !path,
                    strong: strong && !path,
                    path,
                });
            }
        }
    }
    out
}

/// `name`, `pkg.mod`, `Type::method`: letters, digits and `_`, joined by `.` or `::`.
fn is_identifier(text: &str) -> bool {
    text.split("::")
        .flat_map(|part| part.split('.'))
        .all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_the_wording() {
        let cases = [
            ("Which files import rag_common?", Shape::Importers),
            ("Who imports the sandbox module?", Shape::Importers),
            (
                "What breaks if I change get_collection_name?",
                Shape::Impact,
            ),
            ("Which functions call get_collection_name?", Shape::Callers),
            ("Where is Session defined?", Shape::Definition),
            (
                "On which class is the method send defined?",
                Shape::Definition,
            ),
            ("What did the uncommitted diff touch?", Shape::Diff),
            (
                "What does the documentation say about releases?",
                Shape::Docs,
            ),
            ("How are passwords hashed?", Shape::Search),
        ];
        for (question, shape) in cases {
            assert_eq!(shape_of(&question.to_lowercase()), shape, "{question}");
        }
    }

    #[test]
    fn code_looking_words_are_strong() {
        let found = tokens("Does `send` call get_adapter() or Session.request in src/api.py:12?");
        let strong: Vec<&str> = found
            .iter()
            .filter(|t| t.strong)
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(strong, vec!["send", "get_adapter", "Session.request"]);
        let paths: Vec<&str> = found
            .iter()
            .filter(|t| t.path)
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(paths, vec!["src/api.py:12"]);
    }
}
