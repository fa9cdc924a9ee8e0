//! What a question asks, decided against a real index of a small repository
//! in four languages: every form of name the linker reads, an ambiguous name
//! settled by the constrained intent call, the index's facts printed under
//! any prose (garbled, tool-describing or right), and a general question
//! that gets no tool at all. The model is the fake server (real HTTP, OpenAI
//! SSE byte for byte); the expected entities follow from the fixture's
//! source, written here.

use crate::common;

use std::path::Path;

use common::client;
use evident_agent::intent::{DecidedBy, Intent};
use evident_agent::link::{self, EntityKind};
use evident_agent::{
    prefetch, AgentEvent, FinishReason, Limits, NonInteractive, Outcome, Registry, Session,
    ToolContext,
};
use evident_index::{Config, Index};
use evident_llm::Protocol;
use evident_testkit::script::{intent, say};
use evident_testkit::FakeServer;

const CHAT: &str = "/v1/chat/completions";

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "pkg/text.py",
        "def escape(s):\n    return s.replace('<', '&lt;')\n\n\nclass Grid:\n    def render(self):\n        return escape(str(self))\n",
    );
    write(
        "pkg/page.py",
        "from pkg.text import escape, Grid\n\n\nclass Page:\n    def render(self):\n        return escape('page')\n\n\ndef show(grid: Grid):\n    return grid.render()\n",
    );
    write(
        "src/lexer.rs",
        "pub struct Lexer { pos: usize }\n\nimpl Lexer {\n    pub fn skip_ws(&mut self) {\n        self.pos += 1;\n    }\n\n    pub fn next_token(&mut self) {\n        self.skip_ws();\n    }\n}\n",
    );
    write(
        "lib/codec.js",
        "class Codec {\n  decode(text) {\n    return text.trim();\n  }\n}\nmodule.exports = { Codec };\n",
    );
    write(
        "lib/utils.js",
        "var assign = function assignSingleSource(target, source) {\n  return Object.assign(target, source);\n};\nmodule.exports = { assign: assign };\n",
    );
    write(
        "flags/set.go",
        "package flags\n\ntype Set struct{ n int }\n\nfunc (s *Set) Parse(args []string) int {\n\treturn len(args)\n}\n",
    );
    evident_index::index_repo(root, &Default::default()).unwrap();
    dir
}

fn linked(root: &Path, question: &str) -> Vec<(EntityKind, String)> {
    let index = Index::open(root).unwrap();
    link::link(question, &index, &|w| {
        prefetch::is_stopword(w) || w.len() < 3
    })
    .into_iter()
    .map(|e| match e.kind {
        // A file's key may be its module as imports write it; its path is the file.
        EntityKind::File => (e.kind, e.path),
        _ => (e.kind, e.key),
    })
    .collect()
}

#[test]
fn every_separator_and_form_links_to_its_definition_or_file() {
    let dir = repo();
    let root = dir.path();
    let first = |q: &str| {
        linked(root, q)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{q}: nothing linked"))
    };
    let definition = |q: &str| {
        let (kind, key) = first(q);
        assert_eq!(kind, EntityKind::Definition, "{q}");
        key
    };
    // A suffix of a qualified name, with any language's separator.
    assert!(definition("Which functions call text.escape?").ends_with("text.escape"));
    assert!(definition("Who calls pkg.text.escape?").ends_with("text.escape"));
    assert!(definition("Who calls Lexer::skip_ws?").ends_with("skip_ws"));
    assert!(definition("What does Codec#decode do?").ends_with("decode"));
    assert!(definition("Who calls (*Set).Parse?").ends_with("Parse"));
    // Class.method picks the one of two same-named methods.
    assert!(definition("What does Grid.render call?").contains("Grid"));
    assert!(definition("What does Grid's render call?").contains("Grid"));
    assert!(definition("What does Page.render call?").contains("Page"));
    // Backticks make a plain word a name.
    assert!(definition("Where is `escape` defined?").ends_with("escape"));
    // A path is a file, and stands for its module.
    assert_eq!(
        first("Who imports pkg/text.py?"),
        (EntityKind::File, "pkg/text.py".to_string())
    );
    assert_eq!(
        first("Which files depend on the text module?"),
        (EntityKind::File, "pkg/text.py".to_string())
    );
    // A named function expression: the name its header declares, the one a
    // stack trace prints, names the function; a parameter names nothing.
    assert!(definition("Where is utils.assignSingleSource defined?").ends_with("assign"));
    assert!(definition("Who calls `assignSingleSource`?").ends_with("assign"));
    assert!(linked(root, "What is `source`?").is_empty());
    assert!(linked(root, "Where is codec.assignSingleSource defined?").is_empty());
    // English words that name nothing link to nothing.
    assert!(linked(root, "What is seventeen times three?").is_empty());
}

/// A session over `root` with the fake server as the model.
fn ask(root: &Path, server: &FakeServer, question: &str) -> (Outcome, Vec<AgentEvent>) {
    let registry = Registry::read_only(&[]).unwrap();
    let context = ToolContext::plain(root.to_path_buf());
    let client = client(server);
    let mut session = Session::new(
        &client,
        "fake".into(),
        Protocol::Auto,
        &registry,
        &context,
        Config::load(root).unwrap(),
        Limits::default(),
    );
    let mut events = Vec::new();
    let outcome = session.ask(question, &mut NonInteractive, &mut |e| {
        events.push(e.clone())
    });
    (outcome, events)
}

fn prefetched(events: &[AgentEvent]) -> (Intent, DecidedBy, Option<String>) {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Prefetched {
                intent,
                decided_by,
                subject,
                ..
            } => Some((*intent, *decided_by, subject.clone())),
            _ => None,
        })
        .expect("a prefetched event")
}

#[test]
fn an_ambiguous_name_is_settled_by_the_constrained_call() {
    let dir = repo();
    let server = FakeServer::start();
    // Two methods are named render: the model picks the second candidate.
    server.push(CHAT, intent("callers", 2));
    server.push(
        CHAT,
        say("Page.render is called nowhere that the index resolved."),
    );
    let (outcome, events) = ask(dir.path(), &server, "Who calls render?");
    assert_eq!(outcome.reason, FinishReason::Answered);
    let requests = server.requests_to(CHAT);
    let decide = &requests[0].body;
    // The call is constrained to a schema: an intent from the list, a
    // subject among the candidates listed.
    let schema = decide["response_format"].to_string();
    assert!(
        schema.contains("\"callers\"") && schema.contains("\"general\""),
        "{schema}"
    );
    let listing = decide["messages"][1]["content"].as_str().unwrap();
    assert!(
        listing.contains("1. ") && listing.contains("2. "),
        "{listing}"
    );
    let (intent, by, subject) = prefetched(&events);
    assert_eq!((intent, by), (Intent::Callers, DecidedBy::Model));
    // The subject is the second listed candidate, whichever class it is.
    let second = listing.lines().find(|l| l.starts_with("2. ")).unwrap();
    let subject = subject.unwrap();
    assert!(second.contains(&subject), "{second} / {subject}");
    assert!(
        outcome.answer.contains("From the index: "),
        "{}",
        outcome.answer
    );
}

#[test]
fn sure_words_keep_their_intent_when_the_model_only_settles_the_subject() {
    let dir = repo();
    let server = FakeServer::start();
    // "calls" says callers; the tie between the two render methods goes to
    // the model, whose other intent is not taken.
    server.push(CHAT, intent("callees", 2));
    server.push(CHAT, say("Nothing the index resolved calls it."));
    let (outcome, events) = ask(dir.path(), &server, "Which functions call render?");
    // Both definitions' callers are in the facts, not a guess between them.
    let facts = outcome
        .answer
        .split("From the index: ")
        .nth(1)
        .unwrap_or("");
    assert_eq!(facts.matches("call site").count(), 2, "{}", outcome.answer);
    let (intent, by, subject) = prefetched(&events);
    assert_eq!((intent, by), (Intent::Callers, DecidedBy::Model));
    let requests = server.requests_to(CHAT);
    let listing = requests[0].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let second = listing.lines().find(|l| l.starts_with("2. ")).unwrap();
    assert!(second.contains(&subject.unwrap()), "{second}");
}

#[test]
fn garbled_prose_keeps_the_facts_and_is_told_so() {
    let dir = repo();
    let server = FakeServer::start();
    // "Who calls Lexer::skip_ws?" is sure by its words: no intent call.
    server.push(
        CHAT,
        say("There are no callers. Maybe tokenize_all calls it."),
    );
    let (outcome, events) = ask(dir.path(), &server, "Who calls Lexer::skip_ws?");
    assert_eq!(prefetched(&events).1, DecidedBy::Rules);
    assert_eq!(server.requests_to(CHAT).len(), 1);
    let answer = &outcome.answer;
    assert!(
        answer.contains("From the index: 1 call site of")
            && answer.contains("next_token at src/lexer.rs:9"),
        "{answer}"
    );
    assert!(
        answer.contains("the answer says there is nothing"),
        "{answer}"
    );
    assert!(
        answer.contains("tokenize_all, which no evidence holds"),
        "{answer}"
    );
}

#[test]
fn an_answer_that_describes_a_tool_loses_that_sentence_not_the_facts() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(
        CHAT,
        say("You can use the get_callers function with the symbol text.escape to find them."),
    );
    let (outcome, _) = ask(dir.path(), &server, "Which functions call text.escape?");
    let answer = &outcome.answer;
    assert!(!answer.contains("get_callers"), "{answer}");
    assert!(
        answer.starts_with("From the index: ") && answer.contains("render at pkg/text.py:7"),
        "{answer}"
    );
    assert!(
        answer.contains("told you to run a tool was taken out"),
        "{answer}"
    );
}

#[test]
fn a_question_the_repository_describes_is_not_general() {
    let dir = repo();
    std::fs::write(
        dir.path().join("pkg/clock.py"),
        "def format_elapsed(seconds):\n    \"\"\"Format elapsed seconds as a human readable duration.\"\"\"\n    return f'{seconds}s'\n",
    )
    .unwrap();
    evident_index::index_repo(dir.path(), &Default::default()).unwrap();
    let server = FakeServer::start();
    // The model calls it general; the index holds the code it describes.
    server.push(CHAT, intent("general", 0));
    server.push(CHAT, say("format_elapsed in pkg/clock.py does it."));
    let question = "Which function formats elapsed seconds as a human readable duration?";
    let (outcome, events) = ask(dir.path(), &server, question);
    let (intent, by, _) = prefetched(&events);
    assert_eq!((intent, by), (Intent::Search, DecidedBy::Model));
    assert!(outcome.stats.prefetched > 0, "{events:?}");
}

#[test]
fn a_general_question_gets_no_tool_and_no_lookup() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, intent("general", 0));
    server.push(CHAT, say("17 times 23 is 391."));
    let (outcome, events) = ask(dir.path(), &server, "What is 17 times 23?");
    assert_eq!(outcome.reason, FinishReason::Answered);
    assert_eq!(outcome.answer, "17 times 23 is 391.");
    assert_eq!((outcome.tool_calls, outcome.stats.prefetched), (0, 0));
    let requests = server.requests_to(CHAT);
    assert_eq!(requests.len(), 2);
    let answering = &requests[1].body;
    assert!(answering
        .get("tools")
        .is_none_or(|t| t.as_array().is_some_and(|a| a.is_empty())));
    let sent = answering["messages"].to_string();
    assert!(!sent.contains("Results of lookups"), "{sent}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolProposed { .. })),
        "a tool ran"
    );
}

#[test]
fn a_search_answer_loses_its_tool_advice_but_keeps_the_rest() {
    let dir = repo();
    let server = FakeServer::start();
    server.push(CHAT, intent("search", 0));
    server.push(
        CHAT,
        say("You can use search_code to look for it. Escaping is done by escape at pkg/text.py:1."),
    );
    let (outcome, _) = ask(dir.path(), &server, "How is markup made safe for display?");
    let answer = &outcome.answer;
    assert!(!answer.contains("search_code"), "{answer}");
    assert!(
        answer.starts_with("Escaping is done by escape at pkg/text.py:1."),
        "{answer}"
    );
    assert!(
        answer.contains("told you to run a tool was taken out"),
        "{answer}"
    );
}

#[test]
fn a_code_name_nothing_defines_is_searched_for_among_definitions() {
    let dir = repo();
    let write = |path: &str, text: &str| std::fs::write(dir.path().join(path), text).unwrap();
    // `formatters` is a key of what the module exports, no definition.
    write(
        "lib/formats.js",
        "module.exports = {\n  formatters: {\n    plain: function (v) {\n      return v;\n    }\n  }\n};\n",
    );
    write(
        "lib/render.js",
        "var formats = require('./formats');\n\nfunction pick(name) {\n  return formats.formatters[name];\n}\n\nfunction count(items) {\n  return items.length;\n}\n\nmodule.exports = { pick: pick, count: count };\n",
    );
    evident_index::index_repo(dir.path(), &Default::default()).unwrap();
    let server = FakeServer::start();
    server.push(CHAT, say("pick in lib/render.js reads it."));
    let question = "Which functions refer to `formatters` from lib/formats.js?";
    let (_, events) = ask(dir.path(), &server, question);
    let (intent, _, _) = prefetched(&events);
    assert_eq!(intent, Intent::References);
    let searched = events.iter().find_map(|e| match e {
        AgentEvent::ToolProposed {
            name, arguments, ..
        } if name == "search_code" => Some(arguments.clone()),
        _ => None,
    });
    let searched = searched.unwrap_or_else(|| panic!("no search: {events:?}"));
    assert_eq!(searched["query"], "formatters", "{searched}");
    assert_eq!(searched["group"], "definition", "{searched}");
    let found = events.iter().find_map(|e| match e {
        AgentEvent::ToolFinished { name, summary, .. } if name == "search_code" => {
            Some(summary.clone())
        }
        _ => None,
    });
    assert!(found.is_some_and(|s| s.contains("pick")), "{events:?}");
}
