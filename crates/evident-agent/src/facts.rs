//! The index's facts are part of the answer. For a structural question the
//! intent's own tool result is printed under the model's prose
//! (`From the index: 3 call sites of Config.merge: load_file at
//! src/config/load.rs:88, ...`), so a small model that garbles or drops the
//! list cannot lose it. The prose is then held to the facts: sentences that
//! tell the user to run a tool are taken out (the answer already holds what
//! the tool found), and a prose that says there is nothing where the facts
//! list something, or that names code no evidence holds, gets a note.

use evident_index::Evidence;

/// The line printed under the answer.
pub fn block(summary: &str) -> String {
    format!("From the index: {summary}")
}

/// The prose without its sentences that name a tool ("you can use the
/// get_callers function …"), and whether any was taken out.
pub fn without_tool_talk(prose: &str, tools: &[String]) -> (String, bool) {
    let mut kept: Vec<&str> = Vec::new();
    let mut removed = false;
    for sentence in sentences(prose) {
        let lower = sentence.to_lowercase();
        if tools.iter().any(|t| lower.contains(t.as_str())) {
            removed = true;
        } else {
            kept.push(sentence);
        }
    }
    (kept.concat().trim().to_string(), removed)
}

/// Sentences with their ending, so that joining them gives the text back.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let ends = matches!(c, '.' | '!' | '?' | '\n')
            && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        if ends {
            out.push(&text[start..=i]);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// What the prose says that the facts and the evidence do not bear out.
pub fn contradictions(
    prose: &str,
    facts: &[Evidence],
    gathered: &[Evidence],
    question: &str,
) -> Vec<String> {
    let mut notes = Vec::new();
    if !facts.is_empty() && says_none(prose) {
        notes.push(format!(
            "the answer says there is nothing, but the index lists {} {}",
            facts.len(),
            if facts.len() == 1 { "item" } else { "items" }
        ));
    }
    let held = |name: &str| {
        question.contains(name)
            || gathered.iter().any(|ev| {
                ev.name.contains(name)
                    || ev.path.contains(name)
                    || ev.snippet.contains(name)
                    || ev
                        .qualified_name
                        .as_deref()
                        .is_some_and(|q| q.contains(name))
            })
    };
    let mut unheld: Vec<&str> = Vec::new();
    for name in code_names(prose) {
        if !held(name) && !unheld.contains(&name) && unheld.len() < 3 {
            unheld.push(name);
        }
    }
    if !unheld.is_empty() {
        notes.push(format!(
            "the answer names {}, which no evidence holds",
            unheld.join(", ")
        ));
    }
    notes
}

/// "There are no callers", "is not imported anywhere", "none": a prose whose
/// first sentence denies.
fn says_none(prose: &str) -> bool {
    let first = sentences(prose)
        .first()
        .copied()
        .unwrap_or("")
        .to_lowercase();
    first
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "no" | "none" | "nothing" | "not" | "never" | "nowhere"))
}

/// Words of the prose that read as code: `snake_case`, `camelCase`,
/// `a.b`, `f()`, backticked. Paths and `path:line` are citations, checked
/// elsewhere; a file name counts, and is held when a gathered path ends with it.
fn code_names(prose: &str) -> Vec<&str> {
    prose
        .split(|c: char| c.is_whitespace() || ",;()[]{}<>\"'`*".contains(c))
        .map(|w| w.trim_matches(|c: char| ".:!?".contains(c)))
        .filter(|w| {
            let inner_capital =
                w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase());
            let identifier = w.chars().all(|c| c.is_alphanumeric() || "_.:#".contains(c))
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_');
            identifier
                && !w.contains(':')
                && !w.contains('/')
                && (w.contains('_') || inner_capital || w.contains('.'))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_that_names_a_tool_is_taken_out() {
        let tools = vec!["get_callers".to_string()];
        let (kept, removed) = without_tool_talk(
            "You can use the get_callers function with the symbol x. It is called by run.",
            &tools,
        );
        assert!(removed);
        assert_eq!(kept, "It is called by run.");
    }

    #[test]
    fn denial_and_unheld_names_are_noted() {
        let ev = Evidence::new("a.py", 3, 3, evident_index::Kind::Call, "run", "run()");
        let notes = contradictions(
            "There are no callers. Maybe make_widget does it.",
            std::slice::from_ref(&ev),
            std::slice::from_ref(&ev),
            "who calls x?",
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[1].contains("make_widget"));
        assert_eq!(
            code_names("See a/b.go:3 and Options.wrap, then run."),
            vec!["Options.wrap"]
        );
    }
}
