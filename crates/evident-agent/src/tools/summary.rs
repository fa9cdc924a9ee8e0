//! The one-line summaries a tool's output carries: what was found, where.

use evident_index::Evidence;

use super::contract::ToolOutput;

/// The most items a summary line lists by name.
pub(super) const SUMMARY_ITEMS: usize = 8;

/// The call sites one `get_callers` answer lists; all are counted. More
/// would not fit a small model's context anyway.
pub(super) const CALLERS_PAGE: usize = 200;

/// A result whose first line states the answer when the data holds it:
/// `2 import sites of rag_common: ingest.py:1, query.py:1`. Small models
/// read that line; the records below back it.
pub(super) fn found(
    what: &str,
    subject: &str,
    evidence: Vec<Evidence>,
    item: fn(&Evidence) -> String,
) -> ToolOutput {
    let total = evidence.len();
    found_of(what, subject, evidence, total, item)
}

/// [`found`] for the first page of `total` items.
pub(super) fn found_of(
    what: &str,
    subject: &str,
    evidence: Vec<Evidence>,
    total: usize,
    item: fn(&Evidence) -> String,
) -> ToolOutput {
    let of = if subject.is_empty() {
        String::new()
    } else {
        format!(" of {subject}")
    };
    let mut counted = match total {
        0 => format!("no {what}{of}"),
        1 => format!("1 {}{of}", what.trim_end_matches('s')),
        n => format!("{n} {what}{of}"),
    };
    if evidence.len() < total {
        counted.push_str(&format!(" (the first {} listed)", evidence.len()));
    }
    let mut items: Vec<String> = Vec::new();
    for ev in &evidence {
        let text = item(ev);
        if !items.contains(&text) {
            items.push(text);
        }
    }
    // Those past the summary's, and those past the page.
    let more = items.len().saturating_sub(SUMMARY_ITEMS) + (total - evidence.len().min(total));
    items.truncate(SUMMARY_ITEMS);
    let summary = if items.is_empty() {
        counted
    } else if more > 0 {
        format!("{counted}: {} and {more} more", items.join(", "))
    } else {
        format!("{counted}: {}", items.join(", "))
    };
    ToolOutput {
        summary,
        evidence,
        whole: false,
    }
}

/// `Session.send at src/sessions.py:676`
pub(super) fn named_at(ev: &Evidence) -> String {
    let name = ev
        .qualified_name
        .as_deref()
        .map_or(ev.name.as_str(), short_qualified);
    format!("{name} at {}:{}", ev.path, ev.start_line)
}

/// `ingest.py:1`
pub(super) fn place(ev: &Evidence) -> String {
    format!("{}:{}", ev.path, ev.start_line)
}

/// `Session.send` from `requests.sessions.Session.send`: the class (or
/// module) and the name, enough to tell same-named definitions apart.
pub fn short_qualified(qualified: &str) -> &str {
    let separators: Vec<usize> = qualified
        .match_indices(['.', ':'])
        .map(|(i, _)| i)
        .collect();
    // The start of the second-to-last segment.
    let mut segments = 0;
    let mut previous_end = qualified.len();
    for &i in separators.iter().rev() {
        if i + 1 == previous_end {
            // `::` counts once.
            previous_end = i;
            continue;
        }
        segments += 1;
        if segments == 2 {
            return &qualified[i + 1..];
        }
        previous_end = i;
    }
    qualified
}
