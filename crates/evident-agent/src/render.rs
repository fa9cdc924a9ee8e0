//! How tool results read as text. Two renderings of the same `ToolOutput`:
//!
//! - [`render_output`], whole: every record with its full snippet. MCP clients
//!   get this (large models, their own context management).
//! - [`render_for_model`], for evident's own agent, written for 1–2B models:
//!   the summary line first (it states the answer when the data holds it),
//!   each record's header naming where it is defined (`method send (in
//!   requests.sessions.Session)`), and definitions cut to their first lines
//!   with the rest one `read_evidence` away. What was asked to be read
//!   (`read_evidence`, `read_source`, a skill) comes whole.

use evident_index::{Evidence, Kind};

use crate::tools::ToolOutput;

/// Lines of a definition's snippet the model sees before "… N more lines".
pub const MODEL_SNIPPET_LINES: usize = 6;

/// A tool's result as MCP clients read it: the summary, then each record whole.
pub fn render_output(output: &ToolOutput) -> String {
    let mut text = format!("{}\n", output.summary);
    for ev in &output.evidence {
        text.push_str(&format!("\n{} {} {}", ev.location(), ev.kind, ev.name));
        if let Some(doc_id) = &ev.doc_id {
            text.push_str(&format!(" [{doc_id}]"));
        }
        text.push('\n');
        push_lines(&mut text, ev, usize::MAX);
    }
    text
}

/// A tool's result as evident's agent gives it to the model.
pub fn render_for_model(output: &ToolOutput) -> String {
    let mut text = format!("{}\n", output.summary);
    for ev in &output.evidence {
        text.push('\n');
        text.push_str(&header(ev));
        text.push('\n');
        let keep = if output.whole || !is_definition(ev.kind) {
            usize::MAX
        } else {
            MODEL_SNIPPET_LINES
        };
        push_lines(&mut text, ev, keep);
    }
    text
}

/// `src/sessions.py:676-750 method send (in requests.sessions.Session)`
pub fn header(ev: &Evidence) -> String {
    let mut line = format!("{} {} {}", ev.location(), ev.kind, ev.name);
    if let Some(parent) = ev.qualified_name.as_deref().and_then(parent_of) {
        if !ev.name.contains(parent) {
            line.push_str(&format!(" (in {parent})"));
        }
    }
    if let Some(doc_id) = &ev.doc_id {
        line.push_str(&format!(" [{doc_id}]"));
    }
    line
}

/// `requests.sessions.Session` of `requests.sessions.Session.send`.
fn parent_of(qualified: &str) -> Option<&str> {
    let cut = qualified.rfind(['.', ':'])?;
    let parent = qualified[..cut].trim_end_matches(':');
    (!parent.is_empty()).then_some(parent)
}

/// Definitions, code windows and document sections are long; call and
/// import sites, diff hunks and read lines are not.
fn is_definition(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::Call | Kind::Import | Kind::File | Kind::DiffHunk
    )
}

/// The snippet's lines, numbered; past `keep` lines, where the rest is.
fn push_lines(text: &mut String, ev: &Evidence, keep: usize) {
    let total = ev.snippet.lines().count();
    for (n, line) in ev.snippet.lines().take(keep).enumerate() {
        text.push_str(&format!("{:>5}  {line}\n", ev.start_line as usize + n));
    }
    if total > keep {
        let from = ev.start_line as usize + keep;
        text.push_str(&format!(
            "       … {} more lines (read_evidence {} {from}-{})\n",
            total - keep,
            ev.path,
            ev.end_line
        ));
    }
}

/// The gathered evidence, short, for a last answer without tools: each
/// record's header and first lines, at most `max_bytes` in all.
pub fn evidence_digest(findings: &[String], gathered: &[Evidence], max_bytes: usize) -> String {
    let mut text = String::new();
    for finding in findings {
        text.push_str(&format!("- {finding}\n"));
    }
    let mut seen: Vec<(&str, u32, u32)> = Vec::new();
    for ev in gathered {
        let key = (ev.path.as_str(), ev.start_line, ev.end_line);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let mut part = format!("\n{}\n", header(ev));
        push_lines(&mut part, ev, 3);
        if text.len() + part.len() > max_bytes {
            break;
        }
        text.push_str(&part);
    }
    text
}
