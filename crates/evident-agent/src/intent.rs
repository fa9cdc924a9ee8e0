//! What a question asks, chosen among real options. Word stems propose an
//! intent (`import…` → importers, `caller` → callers, the voice and word
//! order of `call` → callers or callees); when they are not sure, or the
//! linked names are ambiguous, one short constrained model call decides: a
//! JSON reply whose intent is one of a fixed list and whose subject is one of
//! the linked candidates, after a prompt prefix that is the same bytes for
//! every question, so a server's prompt cache holds it.
//!
//! This module decides; it runs no tool.

use evident_llm::{run_turn, CancelToken, ChatClient, ChatRequest, Message, Protocol, Usage};
use serde_json::{json, Value};

use crate::link::{Entity, EntityKind};

/// What the question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    Definition,
    Callers,
    Callees,
    Impact,
    Importers,
    References,
    Search,
    Docs,
    Diff,
    General,
}

impl Intent {
    pub const ALL: [Intent; 10] = [
        Intent::Definition,
        Intent::Callers,
        Intent::Callees,
        Intent::Impact,
        Intent::Importers,
        Intent::References,
        Intent::Search,
        Intent::Docs,
        Intent::Diff,
        Intent::General,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Intent::Definition => "definition",
            Intent::Callers => "callers",
            Intent::Callees => "callees",
            Intent::Impact => "impact",
            Intent::Importers => "importers",
            Intent::References => "references",
            Intent::Search => "search",
            Intent::Docs => "docs",
            Intent::Diff => "diff",
            Intent::General => "general",
        }
    }

    /// Needs a subject: a definition, file or module the question names.
    pub fn needs_subject(self) -> bool {
        matches!(
            self,
            Intent::Definition
                | Intent::Callers
                | Intent::Callees
                | Intent::Impact
                | Intent::Importers
                | Intent::References
        )
    }
}

/// Where the decision came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    Rules,
    Model,
    /// The rules' guess, because the model call failed or was not possible.
    Fallback,
}

/// The intent and its subject (an index into the candidates).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Decision {
    pub intent: Intent,
    pub subject: Option<usize>,
    pub by: DecidedBy,
}

/// The rules' proposal, and whether they are sure of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub intent: Intent,
    pub sure: bool,
    /// Some word said what is asked (a stem or a verb of calling).
    pub worded: bool,
}

/// The words that say what is asked, by intent: a word ending in `*` is a
/// stem (any word it begins), any other must be the whole word.
const STEMS: &[(Intent, &[&str])] = &[
    (Intent::Importers, &["import*"]),
    (
        Intent::Impact,
        &["break*", "affect*", "impact*", "depend*", "ripple*"],
    ),
    (
        Intent::Diff,
        &["diff*", "uncommitted", "unstaged", "staged"],
    ),
    (
        Intent::Docs,
        &[
            "doc",
            "docs",
            "documentation",
            "documented",
            "readme*",
            "guide*",
            "manual*",
            "tutorial*",
        ],
    ),
    // Not "definitions", which names code in general ("which definitions use X").
    (
        Intent::Definition,
        &[
            "defined",
            "defines",
            "define",
            "definition",
            "declar*",
            "locat*",
        ],
    ),
    (
        Intent::References,
        &["refer*", "usage*", "use", "uses", "used"],
    ),
];

/// Whether `word` is one that says the question asks for `intent` ("docs"
/// for docs): a search for the answer leaves it out.
pub fn says(intent: Intent, word: &str) -> bool {
    let word = word.to_lowercase();
    STEMS
        .iter()
        .any(|(i, stems)| *i == intent && stems.iter().any(|s| stem_matches(s, &word)))
}

fn stem_matches(stem: &str, word: &str) -> bool {
    match stem.strip_suffix('*') {
        Some(prefix) => word.starts_with(prefix),
        None => word == stem,
    }
}

/// Words for changing code, and words that place a change in the user's own
/// working tree (the speaker, or where the change lives): together, with no
/// subject named, they ask what the uncommitted change holds.
const CHANGE_WORDS: &[&str] = &["chang*", "edit*", "modif*", "touch*", "alter*"];
const OWN_WORK: &[&str] = &[
    "my", "our", "mine", "ours", "local", "locally", "working", "pending",
];

/// Whether the words place a change in the user's own work: "my edits",
/// "the local changes", "did I touch", "we modified" (not "how do I change",
/// which asks how to).
fn own_work(words: &[String]) -> bool {
    let speaker = |w: &String| w == "i" || w == "we";
    words.iter().any(|w| OWN_WORK.contains(&w.as_str()))
        || words.windows(2).any(|pair| {
            let asked_done =
                matches!(pair[0].as_str(), "did" | "have" | "has") && speaker(&pair[1]);
            let told_done = speaker(&pair[0])
                && pair[1].ends_with("ed")
                && CHANGE_WORDS.iter().any(|s| stem_matches(s, &pair[1]));
            asked_done || told_done
        })
}

/// Verbs of calling: active and passive forms.
const CALL_ACTIVE: &[&str] = &["call", "calls", "invoke", "invokes", "invoking", "calling"];
const CALL_PASSIVE: &[&str] = &["called", "invoked"];

/// The question's words, lowercased; a linked name stays one word, so that
/// `break_apart` is no "break".
fn words(question: &str) -> Vec<String> {
    question
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Pronouns that stand for the question's subject ("which code invokes it").
const PRONOUNS: &[&str] = &["it", "them", "this", "that"];

/// The intent the wording proposes. `subject_at` is the word position of the
/// question's subject, when one was linked.
pub fn propose(question: &str, entities: &[Entity]) -> Proposal {
    let words = words(question);
    let named: Vec<String> = entities
        .iter()
        .flat_map(|e| {
            crate::link::parts(&e.text)
                .into_iter()
                .map(str::to_lowercase)
        })
        .collect();
    let has = |stems: &[&str]| {
        words.iter().any(|w| {
            !w.contains('_') && !named.contains(w) && stems.iter().any(|s| stem_matches(s, w))
        })
    };
    let subject = entities.first();
    let subject_at = subject.and_then(|e| {
        let first = crate::link::parts(&e.text)
            .last()
            .map(|p| p.to_lowercase())?;
        words.iter().position(|w| *w == first)
    });
    // Callers or callees: said outright, or by the voice and word order of "call".
    if words.iter().any(|w| w.starts_with("caller")) {
        return sure(Intent::Callers, subject.is_some());
    }
    if words.iter().any(|w| w.starts_with("callee")) {
        return sure(Intent::Callees, subject.is_some());
    }
    let verb = words
        .iter()
        .position(|w| CALL_ACTIVE.contains(&w.as_str()) || CALL_PASSIVE.contains(&w.as_str()));
    let mut hits: Vec<Intent> = STEMS
        .iter()
        .filter(|(_, stems)| has(stems))
        .map(|(intent, _)| *intent)
        .collect();
    if let (Some(verb), Some(at)) = (verb, subject_at) {
        let passive = CALL_PASSIVE.contains(&words[verb].as_str());
        let by_follows = words.get(verb + 1).is_some_and(|w| w == "by");
        let pronoun_follows = words
            .get(verb + 1)
            .is_some_and(|w| PRONOUNS.contains(&w.as_str()));
        // "X is called", "call X", "invoke it": X is called; "called by X",
        // "X calls", "does X call": X calls.
        let subject_is_called = if passive {
            at < verb && !by_follows
        } else {
            at > verb || pronoun_follows
        };
        hits.insert(
            0,
            if subject_is_called {
                Intent::Callers
            } else {
                Intent::Callees
            },
        );
    }
    // "after modifying X, what must I update": a change to a named
    // definition, and nothing else asked, is a question of what it affects.
    let change_to_subject = subject.is_some_and(|e| e.kind == EntityKind::Definition)
        && has(CHANGE_WORDS)
        && !words.iter().any(|w| w == "how" || w == "where");
    if change_to_subject && hits.is_empty() {
        hits.push(Intent::Impact);
    }
    // "what did I edit", "my local modifications": the working tree's change.
    let own_change = subject.is_none() && has(CHANGE_WORDS) && own_work(&words);
    if own_change && !hits.contains(&Intent::Diff) {
        hits.push(Intent::Diff);
    }
    // Depending on a file or module is importing it.
    let on_module = subject.is_some_and(|e| e.kind != EntityKind::Definition);
    if on_module && hits.contains(&Intent::Impact) && !hits.contains(&Intent::Importers) {
        hits.retain(|i| *i != Intent::Impact);
        hits.insert(0, Intent::Importers);
    }
    hits.dedup();
    let unsure = |intent| Proposal {
        intent,
        sure: false,
        worded: true,
    };
    match hits.as_slice() {
        [] => Proposal {
            intent: if subject.is_some() {
                Intent::Definition
            } else {
                Intent::Search
            },
            sure: false,
            worded: false,
        },
        [one] if *one == Intent::Diff => sure(Intent::Diff, subject.is_none()),
        [one] if *one == Intent::Docs => sure(Intent::Docs, true),
        [one] => sure(*one, subject.is_some() || !one.needs_subject()),
        [first, ..] => unsure(*first),
    }
}

fn sure(intent: Intent, sure: bool) -> Proposal {
    Proposal {
        intent,
        sure,
        worded: true,
    }
}

/// Whether the first candidates are too close to pick one without asking.
/// A file and a definition in it, of which the intent wants one kind, are
/// not: the kind decides (see `prefetch::prefer_kinds`).
pub fn ambiguous(entities: &[Entity]) -> bool {
    match entities {
        [a, b, ..] => b.kind == a.kind && b.score >= a.score - 0.05 && a.key != b.key,
        _ => false,
    }
}

/// The candidates a decision may pick among (the prompt lists them).
pub const PROMPT_CANDIDATES: usize = 4;

/// The fixed part of the intent prompt: the same bytes for every question.
const INTENT_PROMPT: &str = "Classify a question about a code repository. Intents:\n\
definition: where something is defined, or what it belongs to\n\
callers: what calls a function\n\
callees: what a function calls\n\
impact: what breaks or must change if something changes\n\
importers: which files import a module or file\n\
references: which code uses a name\n\
search: find code by what it does, or explain how it works\n\
docs: what the documentation says\n\
diff: the uncommitted changes (local edits in the working tree) and what they touched\n\
general: needs no repository (arithmetic, general knowledge, what a common term means)\n\
A question about no candidate and no code of this repository is general.\n\
Reply with JSON: {\"intent\": ..., \"subject\": the number of the candidate it is about, 0 for none}.";

/// One constrained call: the intent from the fixed list, the subject among
/// the candidates. `None` when the model fails or replies out of bounds.
pub fn ask_model(
    client: &dyn ChatClient,
    model: &str,
    question: &str,
    entities: &[Entity],
    cancel: &CancelToken,
) -> Option<(Intent, Option<usize>, Usage)> {
    let shown = &entities[..entities.len().min(PROMPT_CANDIDATES)];
    let mut listing = String::new();
    for (i, e) in shown.iter().enumerate() {
        listing.push_str(&format!("{}. {}\n", i + 1, e.describe()));
    }
    if listing.is_empty() {
        listing.push_str("(none)\n");
    }
    let names: Vec<&str> = Intent::ALL.iter().map(|i| i.name()).collect();
    let schema = json!({
        "type": "object",
        "properties": {
            "intent": {"type": "string", "enum": names},
            "subject": {"type": "integer", "minimum": 0, "maximum": shown.len()},
        },
        "required": ["intent", "subject"],
    });
    let request = ChatRequest {
        model: model.to_string(),
        messages: vec![
            Message::system(INTENT_PROMPT),
            Message::user(format!("Question: {question}\nCandidates:\n{listing}")),
        ],
        protocol: Protocol::Native,
        temperature: Some(0.0),
        max_tokens: Some(24),
        answer_schema: Some(schema),
        ..Default::default()
    };
    let reply = run_turn(client, &request, cancel, &mut |_| {}).ok()?;
    let value: Value = serde_json::from_str(reply.content.trim()).ok()?;
    let intent: Intent = serde_json::from_value(value.get("intent")?.clone()).ok()?;
    let subject = value.get("subject").and_then(Value::as_u64).unwrap_or(0) as usize;
    let subject = (1..=shown.len()).contains(&subject).then(|| subject - 1);
    Some((intent, subject, reply.usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(text: &str) -> Entity {
        Entity {
            text: text.into(),
            kind: EntityKind::Definition,
            key: text.into(),
            label: "function".into(),
            path: "a.py".into(),
            line: 1,
            score: 1.0,
        }
    }

    #[test]
    fn the_voice_of_call_gives_its_direction() {
        let x = [entity("render")];
        let cases = [
            ("Which functions call render?", Intent::Callers),
            ("Where is render called?", Intent::Callers),
            ("What does render call?", Intent::Callees),
            ("Which functions are called by render?", Intent::Callees),
            ("List the callers of render", Intent::Callers),
        ];
        for (question, intent) in cases {
            let p = propose(question, &x);
            assert_eq!((p.intent, p.sure), (intent, true), "{question}");
        }
    }

    #[test]
    fn unsure_without_stems_or_with_several() {
        assert!(!propose("What is 17 times 23?", &[]).sure);
        assert!(
            !propose(
                "What breaks if the import of render changes?",
                &[entity("render")]
            )
            .sure
        );
        assert_eq!(propose("What is in the diff?", &[]).intent, Intent::Diff);
    }

    #[test]
    fn a_change_in_the_users_own_work_is_the_diff() {
        for question in [
            "What have I changed so far?",
            "List our pending edits.",
            "Which files did we touch?",
            "Give me an overview of the local alterations.",
        ] {
            let p = propose(question, &[]);
            assert_eq!((p.intent, p.sure), (Intent::Diff, true), "{question}");
        }
        // Asking how to change something is no change made.
        assert_ne!(
            propose("How do I change the log level?", &[]).intent,
            Intent::Diff
        );
        // A named subject makes it a question about that code.
        let p = propose("What breaks if I change render?", &[entity("render")]);
        assert_eq!((p.intent, p.sure), (Intent::Impact, true));
        let p = propose(
            "Once I alter render, what else needs work?",
            &[entity("render")],
        );
        assert_eq!((p.intent, p.sure), (Intent::Impact, true));
        // Unless another word says what is asked, or it asks how.
        let p = propose(
            "Before I edit render: which code invokes it?",
            &[entity("render")],
        );
        assert_eq!((p.intent, p.sure), (Intent::Callers, true));
        let p = propose("How do I modify render?", &[entity("render")]);
        assert_ne!(p.intent, Intent::Impact);
    }
}
