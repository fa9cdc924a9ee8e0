//! Entity linking: the code-like spans of a question, looked up in the index
//! the way the CLI's SYMBOL and MODULE arguments are, so that a question and
//! a command agree on what a name means.
//!
//! A span is a backticked text, an identifier, a qualified name with any
//! language's separator (`a.b.c`, `A::b`, `A#b`, `(*T).M`, `A's b`), or a
//! file path. A qualified name matches a definition whose qualified name ends
//! with it, or whose file's module path does (`text.escape` for `escape` in
//! `pkg/text.py`); a path matches a file and stands for its module too.
//! Plain English words link only when the index holds exactly that name.
//!
//! This module only reads the index; it runs no tool and asks no model.

use evident_index::lang::syntax;
use evident_index::{Evidence, Index, SymbolQuery};

/// What a span of the question names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    /// A definition: function, method, class, type.
    Definition,
    /// A repository file (it stands for its module).
    File,
    /// A module some file imports that is no repository file (`strconv`, `os.path`).
    Module,
}

/// One candidate the question may be about.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Entity {
    /// The span as the question wrote it.
    pub text: String,
    pub kind: EntityKind,
    /// What a tool is given: the qualified name, the path, the module.
    pub key: String,
    /// `function`, `method`, `class`, `file`, `module`.
    pub label: String,
    pub path: String,
    pub line: u32,
    /// How surely the span names it, 0..1.
    pub score: f32,
}

impl Entity {
    /// `Options::wrap (method, src/options.rs:40)`, as a prompt lists candidates.
    pub fn describe(&self) -> String {
        match self.kind {
            EntityKind::Definition => {
                format!("{} ({}, {}:{})", self.key, self.label, self.path, self.line)
            }
            EntityKind::File => format!("{} (file)", self.key),
            EntityKind::Module => format!("{} (module)", self.key),
        }
    }
}

/// A span of the question and whether it reads as code.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub text: String,
    /// Backticked, or with `_`, a separator, `()`, a digit or an inner capital.
    pub code: bool,
}

/// The most candidates kept: each is a line of the intent prompt.
pub const MAX_ENTITIES: usize = 6;

/// The spans of `question`, in order, once each.
pub fn spans(question: &str) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut push = |text: &str, code: bool| {
        let text = clean(text);
        if text.chars().any(char::is_alphanumeric) && !out.iter().any(|s| s.text == text) {
            out.push(Span {
                code: code || looks_like_code(&text),
                text,
            });
        }
    };
    for (i, piece) in question.split('`').enumerate() {
        if i % 2 == 1 {
            push(piece.trim(), true);
            continue;
        }
        // `(*T).M` is Go's method expression: `T.M`.
        let piece = piece.replace("(*", "").replace(").", ".");
        let words: Vec<&str> = piece
            .split(|c: char| c.is_whitespace() || ",;\"?!()[]{}<>=".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        for (k, word) in words.iter().enumerate() {
            // `Grid's render` reads as `Grid.render`.
            if let Some(owner) = word.strip_suffix("'s") {
                if let Some(next) = words.get(k + 1) {
                    push(&format!("{owner}.{}", clean(next)), true);
                }
                push(owner, false);
                continue;
            }
            push(word, false);
        }
    }
    out
}

fn clean(text: &str) -> String {
    let text = text.trim_matches(|c: char| ".:'*&".contains(c) || c.is_whitespace());
    text.trim_end_matches("()").to_string()
}

fn looks_like_code(text: &str) -> bool {
    let inner_capital =
        text.chars().skip(1).any(|c| c.is_uppercase()) && text.chars().any(|c| c.is_lowercase());
    text.contains('_')
        || text.contains('.')
        || text.contains(syntax::PATH_SEPARATOR)
        || text.contains('#')
        || text.contains('/')
        || inner_capital
}

/// A qualified name's parts, whatever the separator: `a.b::C#d` → a, b, C, d.
pub fn parts(name: &str) -> Vec<&str> {
    name.split(['.', ':', '#', '/', '\\'])
        .map(|p| p.trim_start_matches('*'))
        .filter(|p| !p.is_empty())
        .collect()
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The candidates the question names, surest first, at most [`MAX_ENTITIES`].
/// `plain_word` tells English from a name: a span that does not read as code
/// links only if it is not a plain word.
pub fn link(question: &str, index: &Index, plain_word: &dyn Fn(&str) -> bool) -> Vec<Entity> {
    let files: Vec<String> = index
        .files()
        .map(|f| f.into_iter().map(|(path, _)| path).collect())
        .unwrap_or_default();
    let mut found: Vec<Entity> = Vec::new();
    let all = spans(question);
    for (position, span) in all.iter().enumerate() {
        if !span.code && plain_word(&span.text) {
            continue;
        }
        // "the refill module", "package io": the word beside says it is a module.
        let beside = |k: Option<usize>| {
            k.and_then(|k| all.get(k))
                .is_some_and(|s| MODULE_WORDS.contains(&s.text.to_lowercase().as_str()))
        };
        let called_module = beside(position.checked_sub(1)) || beside(Some(position + 1));
        let mut here = link_file(span, &files);
        if here.is_empty() {
            here = link_module_file(span, &files, called_module);
            // Named as the code imports it, when the imports say it so.
            for e in &mut here {
                if index.importers(&span.text).is_ok_and(|s| !s.is_empty()) {
                    e.key = span.text.clone();
                }
            }
            here.extend(link_definition(span, index));
        }
        if here.iter().all(|e| e.kind != EntityKind::File) {
            here.extend(link_module(span, index, called_module));
        }
        for mut entity in here {
            // Earlier spans first among equals: questions name their subject early.
            entity.score -= position as f32 * 0.001;
            if !found.iter().any(|e| e.key == entity.key) {
                found.push(entity);
            }
        }
    }
    // A definition in a file the question names is the one meant.
    let named_files: Vec<String> = found
        .iter()
        .filter(|e| e.kind == EntityKind::File)
        .map(|e| e.path.clone())
        .collect();
    for e in &mut found {
        if e.kind == EntityKind::Definition && named_files.contains(&e.path) {
            e.score += 0.05;
        }
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    found.truncate(MAX_ENTITIES);
    found
}

/// Words that say the name beside them is a module.
const MODULE_WORDS: &[&str] = &["module", "modules", "package", "file", "crate", "namespace"];

/// A repository file whose module is the span (`refill` for `src/refill.rs`,
/// `help` for `lib/help.js`): surer when the question calls it a module.
fn link_module_file(span: &Span, files: &[String], called_module: bool) -> Vec<Entity> {
    if !is_identifier(&span.text) {
        return Vec::new();
    }
    let matching: Vec<&String> = files
        .iter()
        .filter(|f| module_parts(f).last() == Some(&span.text.as_str()))
        .collect();
    if matching.len() != 1 {
        return Vec::new();
    }
    let base: f32 = if called_module { 1.0 } else { 0.85 };
    vec![Entity {
        text: span.text.clone(),
        kind: EntityKind::File,
        key: matching[0].clone(),
        label: "file".into(),
        path: matching[0].clone(),
        line: 1,
        score: if span.code || called_module {
            base
        } else {
            base * 0.7
        },
    }]
}

/// A repository file the span names by path, path suffix or file name.
fn link_file(span: &Span, files: &[String]) -> Vec<Entity> {
    let text = span.text.trim_start_matches("./");
    if !text.contains('.') && !text.contains('/') {
        return Vec::new();
    }
    let (text, line) = match text.rsplit_once(':') {
        Some((p, l)) if l.parse::<u32>().is_ok() => (p, l.parse().unwrap_or(1)),
        _ => (text, 1),
    };
    let exact: Vec<&String> = files
        .iter()
        .filter(|f| *f == text || f.ends_with(&format!("/{text}")))
        .collect();
    exact
        .iter()
        .take(3)
        .map(|path| Entity {
            text: span.text.clone(),
            kind: EntityKind::File,
            key: (*path).clone(),
            label: "file".into(),
            path: (*path).clone(),
            line,
            score: if exact.len() == 1 { 1.0 } else { 0.7 },
        })
        .collect()
}

/// A file's module path as parts: `src/pkg/text.py` → src, pkg, text.
fn module_parts(path: &str) -> Vec<&str> {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    let mut parts: Vec<&str> = stem.split('/').collect();
    // A package file (`__init__.py`, `mod.rs`, `index.js`) stands for its directory.
    let stems = evident_index::lang::for_path(path).map_or(&[][..], |l| l.package_stems);
    if parts.last().is_some_and(|last| stems.contains(last)) {
        parts.pop();
    }
    parts
}

fn ends_with(whole: &[&str], tail: &[&str]) -> bool {
    whole.len() >= tail.len()
        && whole[whole.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// The definitions a name or qualified name names.
fn link_definition(span: &Span, index: &Index) -> Vec<Entity> {
    let asked = parts(&span.text);
    let Some(last) = asked.last().copied().filter(|l| is_identifier(l)) else {
        return Vec::new();
    };
    let query = SymbolQuery {
        exact: true,
        limit: Some(50),
        ..Default::default()
    };
    let Ok(found) = index.symbols(last, &query) else {
        return Vec::new();
    };
    let qualifier = &asked[..asked.len() - 1];
    let mut out: Vec<Entity> = Vec::new();
    for ev in &found {
        let qualified = ev.qualified_name.clone().unwrap_or_else(|| ev.name.clone());
        // Not its own name: a name its first line declares (the index's
        // last fallback), for a span written as code only.
        if !ev.name.eq_ignore_ascii_case(last) {
            let module = qualifier.is_empty() || ends_with(&module_parts(&ev.path), qualifier);
            if span.code && module {
                out.push(definition_entity(span, ev, qualified, HEADER_NAME));
            }
            continue;
        }
        let score = if qualifier.is_empty() {
            if ev.name == last {
                1.0
            } else {
                0.8
            }
        } else if ends_with(&parts(&qualified), &asked) {
            1.0
        } else if ends_with(&module_parts(&ev.path), qualifier) {
            0.95
        } else if parts(&qualified)
            .iter()
            .rev()
            .skip(1)
            .any(|p| qualifier.last().is_some_and(|q| p.eq_ignore_ascii_case(q)))
        {
            0.9
        } else {
            continue;
        };
        let score = if span.code {
            score
        } else {
            score * plain_weight(&span.text)
        };
        out.push(definition_entity(span, ev, qualified, score));
    }
    // Same-named definitions share the certainty.
    if out.len() > 1 {
        let top = out.iter().map(|e| e.score).fold(0.0, f32::max);
        let tied = out.iter().filter(|e| e.score == top).count();
        for e in &mut out {
            if e.score == top && tied > 1 {
                e.score *= 0.8;
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(MAX_ENTITIES);
    out
}

/// How surely a name a function's first line declares names that function
/// (the index's fallback for a name no definition holds): below a name of
/// its own (0.8 to 1).
const HEADER_NAME: f32 = 0.7;

fn definition_entity(span: &Span, ev: &Evidence, qualified: String, score: f32) -> Entity {
    Entity {
        text: span.text.clone(),
        kind: EntityKind::Definition,
        key: qualified,
        label: ev.kind.as_str().to_string(),
        path: ev.path.clone(),
        line: ev.start_line,
        score,
    }
}

/// A module that some file imports (`strconv`, `os.path`, `./util`).
fn link_module(span: &Span, index: &Index, called_module: bool) -> Option<Entity> {
    let text = span.text.as_str();
    let sites = index.importers(text).ok().filter(|s| !s.is_empty())?;
    Some(Entity {
        text: text.to_string(),
        kind: EntityKind::Module,
        key: text.to_string(),
        label: "module".into(),
        path: sites[0].path.clone(),
        line: sites[0].start_line,
        score: if span.code || called_module {
            0.9
        } else {
            0.9 * plain_weight(text)
        },
    })
}

/// How much a span that does not read as code counts: a capitalised word
/// (`Session`) reads as a name more than a lowercase one (`wrap`).
fn plain_weight(text: &str) -> f32 {
    if text.chars().next().is_some_and(char::is_uppercase) {
        0.7
    } else {
        0.5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(question: &str) -> Vec<String> {
        spans(question).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn every_separator_is_a_span_of_its_own() {
        assert_eq!(
            texts("Does `send` call a.b.c, A::b, A#b or (*T).M in src/x.py:12?"),
            vec![
                "Does",
                "send",
                "call",
                "a.b.c",
                "A::b",
                "A#b",
                "or",
                "T.M",
                "in",
                "src/x.py:12"
            ]
        );
        assert_eq!(
            texts("What does Grid's render call?")[2..4],
            ["Grid.render", "Grid"]
        );
    }

    #[test]
    fn parts_ignore_the_separator() {
        assert_eq!(
            parts("pkg.text::Escape#run"),
            vec!["pkg", "text", "Escape", "run"]
        );
        assert!(ends_with(&parts("pkg.text.escape"), &parts("text::escape")));
        assert_eq!(module_parts("src/pkg/__init__.py"), vec!["src", "pkg"]);
    }
}
