//! Evidence first: before the answering model call, the question's entities
//! are linked against the index ([`crate::link`]), its intent is decided
//! ([`crate::intent`]: word stems, or one constrained model call when they
//! are not sure), and the intent's own tool is planned on the linked subject
//! (`get_callers` for callers, `find_importers` for importers, a definition
//! search for search-and-explain, document sections for docs, nothing at
//! all for a general question). The session runs the planned calls through
//! the same validation as the model's and puts their results in the first
//! prompt; the intent's tool's result is also printed under the answer as
//! the index's facts.
//!
//! This module only plans: it reads the index to tell names that exist from
//! English words, and never runs a tool itself.

use evident_index::{Index, Kind, SearchGroup, SearchMode};
use serde_json::{json, Map, Value};

use crate::intent::{self, DecidedBy, Decision, Intent};
use crate::link::{self, Entity, EntityKind};
use crate::tools::ToolContext;
use evident_index::SearchQuery;

impl Intent {
    /// The tool whose result is the answer's evidence and its facts.
    pub fn tool(self) -> Option<&'static str> {
        match self {
            Intent::Importers => Some("find_importers"),
            Intent::Callers => Some("get_callers"),
            Intent::Callees => Some("get_callees"),
            Intent::Impact => Some("analyze_impact"),
            Intent::Definition => Some("find_symbol"),
            Intent::References => Some("find_references"),
            Intent::Diff => Some("read_git_diff"),
            // The document sections a search found: the section is the fact.
            Intent::Docs => Some("search_code"),
            Intent::Search | Intent::General => None,
        }
    }

    /// Whether the intent's tool result is printed under the answer.
    pub fn prints_facts(self) -> bool {
        self.tool().is_some()
    }

    /// The tools beyond the core set that this intent needs offered.
    pub fn extra_tools(self) -> &'static [&'static str] {
        match self {
            Intent::Diff => &["read_git_diff"],
            Intent::Docs => &["list_sources", "read_source"],
            Intent::Callees => &["get_callees"],
            Intent::References => &["find_references"],
            _ => &[],
        }
    }
}

/// The calls to run before the model is asked, and why.
#[derive(Debug, Clone)]
pub struct Plan {
    pub decision: Decision,
    /// What the question names, surest first.
    pub entities: Vec<Entity>,
    pub calls: Vec<(&'static str, Map<String, Value>)>,
    /// `calls[0]` is the intent's tool: when it finds something, its result
    /// is the answer's evidence, and the model is first asked to answer
    /// without tools.
    pub answering: bool,
    /// `calls[1]` is the same lookup for another definition of the
    /// subject's name; its result joins the facts.
    pub twin: bool,
}

impl Plan {
    pub fn intent(&self) -> Intent {
        self.decision.intent
    }

    /// The candidate the decision picked.
    pub fn subject(&self) -> Option<&Entity> {
        self.decision.subject.and_then(|i| self.entities.get(i))
    }
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

/// Whether `word` is English that says what is asked, never a name.
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word.to_lowercase().as_str())
}

/// The constrained intent call: the candidates in, the intent and the
/// subject's index out (`None`: no reply that fits).
pub type AskModel<'a> = dyn FnMut(&[Entity]) -> Option<(Intent, Option<usize>)> + 'a;

/// Links the question's entities and decides its intent. `ask_model` is the
/// constrained call, made only when the rules are not sure or the entities
/// are ambiguous; `None` from it keeps the rules' guess.
pub fn decide(
    question: &str,
    context: &ToolContext,
    index: Option<&Index>,
    ask_model: &mut AskModel<'_>,
) -> (Decision, Vec<Entity>) {
    let mut entities = index.map_or_else(Vec::new, |index| {
        link::link(question, index, &|w| is_stopword(w) || w.len() < 3)
    });
    let mut proposal = intent::propose(question, &entities);
    // With no word saying what is asked, English words that happen to name
    // a definition ("wrap", "help") are no subject.
    if !proposal.worded {
        entities.retain(|e| e.score >= 0.6);
        proposal = intent::propose(question, &entities);
    }
    prefer_kinds(proposal.intent, &mut entities);
    // The description search runs at most once, whoever asks for a subject.
    let mut searched = false;
    if let (true, true, Some(index)) = (proposal.intent.needs_subject(), entities.is_empty(), index)
    {
        entities = described(question, context, index);
        searched = true;
    }
    let sure = proposal.sure && !intent::ambiguous(&entities);
    let mut decision = Decision {
        intent: proposal.intent,
        subject: (!entities.is_empty()).then_some(0),
        by: DecidedBy::Rules,
    };
    if !sure {
        decision.by = DecidedBy::Fallback;
        if let Some((intent, subject)) = ask_model(&entities) {
            // Sure words and tied candidates: the model picks the subject
            // only; the words said what is asked.
            let intent = if proposal.sure {
                proposal.intent
            } else {
                intent
            };
            if subject.is_none() {
                prefer_kinds(intent, &mut entities);
            }
            decision = Decision {
                intent,
                subject: subject.or(decision.subject),
                by: DecidedBy::Model,
            };
        }
    }
    // The model's "general" stands only where the repository holds nothing
    // the question describes.
    if let (Intent::General, DecidedBy::Model, Some(index)) = (decision.intent, decision.by, index)
    {
        let described_here = if searched {
            !entities.is_empty()
        } else {
            !described(question, context, index).is_empty()
        };
        if described_here {
            decision.intent = Intent::Search;
        }
    }
    if let (true, true, Some(index)) = (decision.intent.needs_subject(), entities.is_empty(), index)
    {
        if !searched {
            entities = described(question, context, index);
        }
        decision.subject = (!entities.is_empty()).then_some(0);
        // About nothing the repository holds: a question for the model alone.
        if entities.is_empty() && decision.by == DecidedBy::Model {
            decision.intent = Intent::General;
        }
    }
    (decision, entities)
}

/// Importers are asked of files and modules; the other structural intents
/// of definitions. The kind the intent needs comes first (a stable sort).
fn prefer_kinds(intent: Intent, entities: &mut [Entity]) {
    let wanted = |e: &Entity| match intent {
        Intent::Importers => e.kind != EntityKind::Definition,
        Intent::Callers | Intent::Callees | Intent::Impact | Intent::References => {
            e.kind == EntityKind::Definition
        }
        _ => true,
    };
    entities.sort_by_key(|e| !wanted(e));
}

/// The question's content words: what a search is given.
fn content_words(question: &str) -> String {
    let words: Vec<&str> = question
        .split(|c: char| c.is_whitespace() || ",;()[]{}\"'?!<>`".contains(c))
        .map(|w| w.trim_matches(|c: char| ".:".contains(c)))
        .filter(|w| !w.is_empty() && !is_stopword(w))
        .collect();
    words.join(" ").chars().take(300).collect()
}

/// Definitions the question describes in words ("the retry helper"): the
/// best of a definition search over names and doc comments.
fn described(question: &str, context: &ToolContext, index: &Index) -> Vec<Entity> {
    let words = content_words(question);
    if words.is_empty() {
        return Vec::new();
    }
    let mode = if context.search.has_embedder() {
        SearchMode::Hybrid
    } else {
        SearchMode::Bm25
    };
    let request = SearchQuery {
        limit: 3,
        group: SearchGroup::Definition,
        mode,
        ..SearchQuery::new(words)
    };
    let Ok(answer) = context.search.search(&context.root, index, &request) else {
        return Vec::new();
    };
    // A description's words are the definition's own: most of them appear in
    // its name or first lines (its doc comment); a near miss is no subject.
    let asked: Vec<String> = request
        .text
        .split(' ')
        .filter(|w| w.len() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect();
    let described_by = |ev: &evident_index::Evidence| {
        let doc = index.doc_comment(ev).ok().flatten().unwrap_or_default();
        let text = format!("{} {doc} {}", ev.name, ev.snippet).to_lowercase();
        let held = asked.iter().filter(|w| text.contains(w.as_str())).count();
        held * 2 >= asked.len() && held >= 2
    };
    answer
        .results
        .iter()
        .filter(|ev| ev.kind != Kind::Doc && ev.kind != Kind::Chunk && described_by(ev))
        .enumerate()
        .map(|(rank, ev)| Entity {
            text: ev.name.clone(),
            kind: EntityKind::Definition,
            key: ev.qualified_name.clone().unwrap_or_else(|| ev.name.clone()),
            label: ev.kind.as_str().to_string(),
            path: ev.path.clone(),
            line: ev.start_line,
            score: 0.5 - rank as f32 * 0.05,
        })
        .collect()
}

/// Plans the lookups for a decided question.
pub fn plan(question: &str, decision: Decision, entities: Vec<Entity>) -> Plan {
    let intent = decision.intent;
    let subject = decision.subject.and_then(|i| entities.get(i));
    let mut calls: Vec<(&'static str, Map<String, Value>)> = Vec::new();
    let mut twin = false;
    if let Some((subject, call)) = subject.and_then(|s| Some((s, intent_call(intent, s)?))) {
        calls.push(call);
        // A name two definitions share: the other's lookup too, so that the
        // facts cover both rather than a guess between them.
        let other = entities.iter().find(|e| {
            e.kind == EntityKind::Definition && e.text == subject.text && e.key != subject.key
        });
        if let Some(call) = other.and_then(|e| intent_call(intent, e)) {
            calls.push(call);
            twin = true;
        }
    }
    match intent {
        Intent::Diff => calls.push(("read_git_diff", Map::new())),
        Intent::Search => calls.push((
            "search_code",
            args(json!({"query": content_words(question), "group": "definition", "limit": 4})),
        )),
        Intent::Docs => {
            // The words that asked for documents would find "docs/" paths, not the answer.
            let words = content_words(question);
            let query: Vec<&str> = words
                .split(' ')
                .filter(|w| !intent::says(Intent::Docs, w))
                .collect();
            calls.push((
                "search_code",
                args(
                    json!({"query": query.join(" "), "kind": "doc", "group": "chunk", "limit": 2}),
                ),
            ))
        }
        _ => {}
    }
    let answering =
        intent.tool().is_some() && calls.first().map(|(name, _)| *name) == intent.tool();
    if intent != Intent::General {
        // Other files and definitions the question names: their lines.
        for entity in entities
            .iter()
            .filter(|e| Some(*e) != subject && e.score >= 0.9)
        {
            if calls.len() >= MAX_CALLS {
                break;
            }
            calls.push(match entity.kind {
                EntityKind::File => read_call(&entity.path, entity.line),
                _ => ("find_symbol", args(json!({"name": entity.key}))),
            });
        }
        if calls.is_empty() {
            calls.extend(fallback_search(question, &entities));
        }
    }
    calls.truncate(MAX_CALLS);
    Plan {
        decision,
        entities,
        twin: twin && calls.len() > 1,
        calls,
        answering,
    }
}

/// The search made when no lookup could be: for the names written as code
/// that the index defines nothing by (a key of an exported object, a
/// constant of another language), the definitions whose text holds them,
/// which is what "which functions use X" asks of text; else the question's
/// content words.
fn fallback_search(
    question: &str,
    entities: &[Entity],
) -> Option<(&'static str, Map<String, Value>)> {
    let unlinked: Vec<String> = link::spans(question)
        .into_iter()
        .filter(|s| s.code && !entities.iter().any(|e| e.text == s.text))
        .map(|s| s.text)
        .collect();
    if !unlinked.is_empty() {
        let query = unlinked.join(" ");
        return Some((
            "search_code",
            args(json!({"query": query, "group": "definition", "limit": 4})),
        ));
    }
    let query = content_words(question);
    (!query.is_empty()).then(|| ("search_code", args(json!({"query": query, "limit": 4}))))
}

/// The intent's own call on its subject.
fn intent_call(intent: Intent, subject: &Entity) -> Option<(&'static str, Map<String, Value>)> {
    let key = subject.key.as_str();
    let on_file = subject.kind != EntityKind::Definition;
    Some(match intent {
        Intent::Importers if on_file => ("find_importers", args(json!({"module": key}))),
        // Importing a definition is importing its file.
        Intent::Importers => ("find_importers", args(json!({"module": subject.path}))),
        Intent::Definition if subject.kind == EntityKind::File => {
            read_call(&subject.path, subject.line)
        }
        _ if on_file => return None,
        Intent::Definition => ("find_symbol", args(json!({"name": key}))),
        Intent::Callers => ("get_callers", args(json!({"symbol": key}))),
        Intent::Callees => ("get_callees", args(json!({"symbol": key}))),
        Intent::Impact => ("analyze_impact", args(json!({"symbol": key}))),
        Intent::References => ("find_references", args(json!({"symbol": key}))),
        _ => return None,
    })
}

fn read_call(path: &str, line: u32) -> (&'static str, Map<String, Value>) {
    let start = line.saturating_sub(10).max(1);
    (
        "read_evidence",
        args(json!({"path": path, "start_line": start, "end_line": start + 59})),
    )
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
