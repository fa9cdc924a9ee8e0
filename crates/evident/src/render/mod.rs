//! Human and JSON renderings of what the library returns.

mod map;
mod paint;
mod scip;

pub use map::{map_dot, map_mermaid, map_text, node_label as map_node_label};
pub use paint::Paint;

use std::fmt::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use evident_index::walk::Skipped;
use evident_index::{printable, EmbedSummary, Evidence, Status, Summary};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

/// Prints a text output with what a terminal would obey in it escaped
/// (names and lines come from the repository); its own newlines stay.
pub fn print_text(text: &str) {
    out!("{}", terminal_safe(text));
}

/// `text`, each line through [`printable`].
pub fn terminal_safe(text: &str) -> String {
    text.split('\n')
        .map(|line| printable(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The documents `evident sources` lists: ID, path, title and length, one per line.
pub fn sources(docs: &[Evidence]) -> String {
    let mut out = String::new();
    for doc in docs {
        let _ = writeln!(
            out,
            "{}  {}  {}  ({} lines)",
            doc.doc_id.as_deref().unwrap_or(""),
            doc.path,
            doc.name,
            doc.end_line
        );
    }
    out
}

/// What `evident embed` did, in words.
pub fn embed_summary(s: &EmbedSummary, model: &str, location: &str) -> String {
    format!(
        "embedded {} chunks with {model} at {location} ({} reused, {} unreadable); {} chunks have vectors\n",
        s.embedded, s.reused, s.skipped, s.with_vectors
    )
}

/// What `evident embed` did, as JSON.
pub fn embed_summary_json(s: &EmbedSummary, model: &str) -> String {
    embed_summary_value(s, model).to_string()
}

pub fn embed_summary_value(s: &EmbedSummary, model: &str) -> serde_json::Value {
    json!({
        "model": model,
        "embedded": s.embedded, "reused": s.reused,
        "skipped": s.skipped, "with_vectors": s.with_vectors,
    })
}

/// One protocol's line of `evident probe`.
pub fn probe_row(r: &evident_llm::ProbeResult, configured: bool) -> String {
    format!(
        "{:<12} {:<4} {:>6.1} s  {}{}",
        r.protocol.name(),
        if r.ok { "ok" } else { "FAIL" },
        r.seconds,
        r.detail,
        if configured { " (configured)" } else { "" }
    )
}

/// `evident probe --json`: one object per protocol tried.
pub fn probe_json(results: &[evident_llm::ProbeResult]) -> String {
    let rows: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            json!({
                "protocol": r.protocol.name(), "ok": r.ok, "seconds": r.seconds, "detail": r.detail,
                "prompt_tokens": r.usage.prompt_tokens, "completion_tokens": r.usage.completion_tokens,
                "eval_ms": r.usage.eval_ms,
            })
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default()
}

/// `path:start-end  kind  name`, then the numbered snippet; printable
/// throughout, coloured when `paint` says so.
pub fn evidence_list(results: &[Evidence], paint: Paint) -> String {
    let mut out = String::new();
    for (i, ev) in results.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let shown_name = ev.qualified_name.as_deref().unwrap_or(&ev.name);
        let _ = write!(
            out,
            "{}  {}  {}",
            paint.path(&ev.location()),
            paint.kind(&ev.kind.to_string()),
            paint.name(shown_name)
        );
        if let Some(reason) = &ev.reason {
            let _ = write!(out, "  ({})", printable(reason));
        }
        out.push('\n');
        out += &numbered(ev, paint);
    }
    out
}

/// Snippet lines with their line numbers; an omission marker is shown unnumbered
/// and the numbering resumes after the omitted lines.
fn numbered(ev: &Evidence, paint: Paint) -> String {
    let width = ev.end_line.to_string().len();
    let mut line = ev.start_line as usize;
    let mut out = String::new();
    for text in ev.snippet.split('\n') {
        let shown = printable(text);
        if let Some(omitted) = omitted_count(text) {
            let _ = writeln!(out, "{:>width$}  {shown}", "");
            line += omitted;
            continue;
        }
        let number = paint.line_number(&format!("{line:>width$}"));
        let _ = writeln!(out, "{number}  {shown}");
        line += 1;
    }
    out
}

fn omitted_count(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("[... ")?;
    let (n, tail) = rest.split_once(' ')?;
    tail.starts_with("lines omitted").then(|| n.parse().ok())?
}

pub fn outline(results: &[Evidence]) -> String {
    let mut out = String::new();
    if let Some(first) = results.first() {
        let _ = writeln!(out, "{}", printable(&first.path));
    }
    for ev in results {
        let indent = "  ".repeat(ev.depth.unwrap_or(0) as usize + 1);
        let first_line = ev.snippet.lines().next().unwrap_or("").trim();
        let _ = writeln!(
            out,
            "{indent}{} {}  [{}-{}]  {}",
            ev.kind,
            printable(&ev.name),
            ev.start_line,
            ev.end_line,
            first_line
        );
    }
    out
}

pub fn summary(s: &Summary) -> String {
    let mut out = format!(
        "indexed {} files ({} parsed, {} unchanged, {} removed): {} definitions, {} imports, {} calls; {} skipped{}; {:.2} s\n",
        s.files,
        s.parsed,
        s.unchanged,
        s.removed,
        s.definitions,
        s.imports,
        s.calls,
        s.skipped.len(),
        skip_counts(&s.skipped),
        s.elapsed.as_secs_f64()
    );
    if s.rebuilt_damaged {
        out +=
            "  the index was damaged: it was built again from the files (they were not touched)\n";
    }
    scip::summary_lines(s, &mut out);
    if let Some(sibling) = &s.seeded_from {
        let _ = writeln!(
            out,
            "  started from another worktree's index ({}): only what differs was parsed",
            sibling.display()
        );
    }
    if s.from_cache > 0 {
        let _ = writeln!(
            out,
            "  {} of the {} parsed came from the parse cache (the same bytes at the same path, parsed before)",
            s.from_cache, s.parsed
        );
    }
    for skipped in s.skipped.iter().take(10) {
        let _ = writeln!(
            out,
            "  skipped {}: {}",
            printable(&skipped.rel),
            printable(&skipped.reason)
        );
    }
    if s.skipped.len() > 10 {
        let _ = writeln!(
            out,
            "  … and {} more (`evident status` lists them)",
            s.skipped.len() - 10
        );
    }
    for part in &s.in_part {
        let _ = writeln!(
            out,
            "  indexed in part {}: {}",
            printable(&part.rel),
            printable(&part.reason)
        );
    }
    if s.syntax_errors > 0 {
        let _ = writeln!(
            out,
            "  {} file(s) have syntax errors; what parsed is indexed",
            s.syntax_errors
        );
    }
    out
}

/// ` (3 too large, 1 secret file)`, or nothing when nothing was skipped.
fn skip_counts(skipped: &[Skipped]) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let counts: Vec<String> = Skipped::count_by_category(skipped)
        .into_iter()
        .map(|(category, n)| format!("{n} {category}"))
        .collect();
    format!(" ({})", counts.join(", "))
}

/// What `evident index` did, as JSON; `embedding` says what the embedding step did.
pub fn summary_json(s: &Summary, embedding: serde_json::Value) -> String {
    json!({
        "root": s.root,
        "files": s.files,
        "parsed": s.parsed,
        "parsed_from_cache": s.from_cache,
        "unchanged": s.unchanged,
        "removed": s.removed,
        "added": s.added,
        "definitions": s.definitions,
        "imports": s.imports,
        "calls": s.calls,
        "calls_resolved_this_run": s.resolved_calls,
        "rebuilt_damaged": s.rebuilt_damaged,
        "syntax_errors": s.syntax_errors,
        "skipped": s.skipped.iter().map(|k| json!({"path": k.rel, "reason": k.reason})).collect::<Vec<_>>(),
        "skipped_by_reason": Skipped::count_by_category(&s.skipped).into_iter()
            .map(|(category, n)| (category.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        "in_part": s.in_part.iter().map(|k| json!({"path": k.rel, "reason": k.reason})).collect::<Vec<_>>(),
        "scip_imported": s.scip_imported,
        "scip_stale": s.scip_stale.iter().map(|(path, reason)| json!({"path": path, "reason": reason})).collect::<Vec<_>>(),
        "scip_dropped": s.scip_dropped,
        "scip_unreadable": s.scip_unreadable,
        "seconds": s.elapsed.as_secs_f64(),
        "embedding": embedding,
    })
    .to_string()
}

pub fn status(s: &Status) -> String {
    let mut out = format!(
        "repository: {}\nindex:      {} (schema {})\n",
        s.root.display(),
        s.index_path.display(),
        s.schema_version
    );
    match s.indexed_at {
        Some(t) => {
            let _ = writeln!(out, "indexed:    {}", when(t));
        }
        None => out += "indexed:    never completed\n",
    }
    if !s.complete {
        out += "warning:    the last run was interrupted; run `evident index` to finish it\n";
    }
    let files: u64 = s.files_by_language.iter().map(|(_, n)| n).sum();
    let langs: Vec<String> = s
        .files_by_language
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    let _ = writeln!(out, "files:      {files} ({})", langs.join(", "));
    let _ = writeln!(
        out,
        "contents:   {} definitions, {} imports ({} resolved in the repo), {} calls ({} resolved, {} external, {} builtin, {} unresolved)",
        s.definitions,
        s.imports,
        s.resolved_imports,
        s.calls,
        s.resolved_calls,
        s.external_calls,
        s.builtin_calls,
        s.calls
            .saturating_sub(s.resolved_calls + s.external_calls + s.builtin_calls)
    );
    if let Some(history) = &s.history {
        let short = history.head.get(..12).unwrap_or(&history.head);
        let _ = writeln!(
            out,
            "history:    {} commit(s) of {short} read for search's history signal",
            history.commits
        );
    }
    if s.syntax_errors > 0 {
        let _ = writeln!(
            out,
            "syntax:     {} file(s) parsed with errors",
            s.syntax_errors
        );
    }
    let skips: Vec<Skipped> = s
        .skipped
        .iter()
        .map(|(rel, reason)| Skipped {
            rel: rel.clone(),
            reason: reason.clone(),
        })
        .collect();
    let _ = writeln!(out, "skipped:    {}{}", skips.len(), skip_counts(&skips));
    for (path, reason) in s.skipped.iter().take(20) {
        let _ = writeln!(out, "  {}: {}", printable(path), printable(reason));
    }
    let st = &s.staleness;
    if st.is_stale() {
        let _ = writeln!(
            out,
            "stale:      {} modified, {} added, {} deleted since the last index; run `evident index`",
            st.modified.len(),
            st.added.len(),
            st.deleted.len()
        );
        for (label, paths) in [
            ("modified", &st.modified),
            ("added", &st.added),
            ("deleted", &st.deleted),
        ] {
            for p in paths.iter().take(10) {
                let _ = writeln!(out, "  {label} {}", printable(p));
            }
        }
    } else {
        out += "stale:      no, the index matches the files on disk\n";
    }
    if let Some(scip) = &s.scip {
        scip::status_lines(scip, &mut out);
    }
    out
}

pub fn status_json(s: &Status) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Impact as text: the changed definition(s), then each affected one by depth
/// with the chain back, a risk line, and what was left out.
pub fn impact_text(impact: &evident_index::Impact) -> String {
    let mut out = String::new();
    for t in &impact.targets {
        let _ = writeln!(
            out,
            "impact of {} ({}:{}-{})",
            t.qualified_name, t.path, t.start_line, t.end_line
        );
    }
    for node in &impact.nodes {
        let depth = node.depth.unwrap_or(0);
        let chain = chain(node);
        let _ = writeln!(
            out,
            "{}[{depth}] {}  {}:{}  ({}; {})",
            "  ".repeat(depth as usize),
            node.name,
            node.path,
            node.start_line,
            node.confidence.as_deref().unwrap_or("?"),
            chain
        );
    }
    if impact.omitted > 0 {
        let _ = writeln!(out, "… {} more (raise --limit)", impact.omitted);
    }
    out += &possible_text(&impact.possible);
    let direct = impact.nodes.iter().filter(|n| n.depth == Some(1)).count();
    let _ = writeln!(
        out,
        "risk: {} direct caller(s), {} affected definition(s) in {} file(s){}",
        direct,
        impact.nodes.len() + impact.omitted,
        impact.files,
        possible_count(&impact.possible, ", and ")
    );
    out
}

/// `N possible call site(s) whose receiver type is unknown`, after `lead`; empty when none.
/// `, 1-100 shown (--offset 100 for more)` when a page holds less than all.
pub fn page_shown(page: evident_index::Page, shown: usize, total: usize) -> String {
    if shown == total {
        return String::new();
    }
    if shown == 0 {
        return format!(", none shown past --offset {}", page.offset);
    }
    let last = page.offset + shown;
    let more = if last < total {
        format!(" (--offset {last} for more)")
    } else {
        String::new()
    };
    format!(", {}-{last} shown{more}", page.offset + 1)
}

pub fn possible_count(possible: &evident_index::Possible, lead: &str) -> String {
    match possible.total {
        0 => String::new(),
        n => format!("{lead}{n} possible call site(s) whose receiver type is unknown"),
    }
}

/// The possible call sites, as a group of their own.
fn possible_text(possible: &evident_index::Possible) -> String {
    let mut out = String::new();
    if possible.total == 0 {
        return out;
    }
    let _ = writeln!(
        out,
        "possible (not resolved: same name, receiver type unknown):"
    );
    for site in &possible.sites {
        let _ = writeln!(
            out,
            "  {}  {}:{}  {}",
            site.name,
            site.path,
            site.start_line,
            site.snippet.trim()
        );
    }
    if possible.total > possible.sites.len() {
        let _ = writeln!(out, "  … {} more", possible.total - possible.sites.len());
    }
    out
}

pub fn impact_json(impact: &evident_index::Impact) -> String {
    let mut value = json!({
        "targets": impact.targets,
        "nodes": impact.nodes,
        "omitted": impact.omitted,
        "files": impact.files,
    });
    if let Some(map) = value.as_object_mut() {
        map.insert(
            "direct_callers".into(),
            json!(impact.nodes.iter().filter(|n| n.depth == Some(1)).count()),
        );
        map.insert("possible".into(), json!(impact.possible.sites));
        map.insert("possible_total".into(), json!(impact.possible.total));
    }
    format!(
        "{}\n",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    )
}

pub fn diff_text(report: &evident_index::DiffReport) -> String {
    let mut out = format!("{}: {} changed file(s)\n", report.compared, report.files);
    if report.files == 0 {
        return out;
    }
    out += "\nhunks:\n";
    for hunk in &report.hunks {
        let _ = writeln!(
            out,
            "{}  {}",
            hunk.location(),
            hunk.reason.as_deref().unwrap_or("")
        );
        for line in hunk.snippet.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    for path in &report.binary {
        let _ = writeln!(out, "{path}  (binary)");
    }
    if !report.touched.is_empty() {
        out += "\ndefinitions touched:\n";
        for t in &report.touched {
            let ev = &t.evidence;
            let _ = writeln!(
                out,
                "  {:<8} {} {}  {}  callers: {} direct, {} affected in {} file(s){}",
                format!("{:?}", t.change).to_lowercase(),
                ev.kind,
                ev.qualified_name.as_deref().unwrap_or(&ev.name),
                ev.location(),
                t.direct_callers,
                t.affected,
                t.affected_files,
                match t.possible_callers {
                    0 => String::new(),
                    n => format!(", {n} possible"),
                }
            );
            out += &may_break(t);
        }
    }
    let _ = writeln!(out, "\n{}", report.risk());
    out
}

/// `a -> b -> target`: how a node reaches what it affects.
fn chain(node: &Evidence) -> String {
    node.via
        .as_ref()
        .map(|v| v.join(" -> "))
        .unwrap_or_default()
}

/// What may break because of one touched definition: the nearest affected
/// definitions with their chains back to it, and how many more.
fn may_break(t: &evident_index::Touched) -> String {
    let mut out = String::new();
    for node in &t.affected_definitions {
        let chain = chain(node);
        let _ = writeln!(
            out,
            "           may break: {}  {}:{}  ({chain})",
            node.name, node.path, node.start_line
        );
    }
    if t.affected > t.affected_definitions.len() {
        let _ = writeln!(
            out,
            "           … {} more (evident impact {})",
            t.affected - t.affected_definitions.len(),
            t.evidence
                .qualified_name
                .as_deref()
                .unwrap_or(&t.evidence.name)
        );
    }
    out
}

pub fn diff_json(report: &evident_index::DiffReport) -> String {
    let mut value = serde_json::to_value(report).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("risk".into(), json!(report.risk()));
    }
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

fn graph_id(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    id.insert(0, 'n');
    id
}

/// Graphviz: `evident impact X --format dot | dot -Tsvg > impact.svg`.
pub fn dot(edges: &[(String, String)]) -> String {
    let mut out = String::from(
        "digraph calls {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    let mut seen = std::collections::HashSet::new();
    for (caller, callee) in edges {
        if seen.insert((caller, callee)) {
            let _ = writeln!(out, "  {:?} -> {:?};", caller, callee);
        }
    }
    out.push_str("}\n");
    out
}

/// Mermaid flowchart, for Markdown viewers that render it.
pub fn mermaid(edges: &[(String, String)]) -> String {
    let mut out = String::from("flowchart LR\n");
    let mut seen = std::collections::HashSet::new();
    for (caller, callee) in edges {
        if seen.insert((caller, callee)) {
            let _ = writeln!(
                out,
                "  {}[\"{}\"] --> {}[\"{}\"]",
                graph_id(caller),
                caller.replace('"', "'"),
                graph_id(callee),
                callee.replace('"', "'")
            );
        }
    }
    out
}

/// `2026-11-29 14:57:32 UTC (3 min ago)`.
fn when(unix: u64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let ago = now.saturating_sub(unix);
    let relative = match ago {
        0..=59 => format!("{ago} s ago"),
        60..=3599 => format!("{} min ago", ago / 60),
        3600..=86_399 => format!("{} h ago", ago / 3600),
        _ => format!("{} days ago", ago / 86_400),
    };
    let (days, secs) = ((unix / 86_400) as i64, unix % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC ({relative})",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// A terminal progress bar for indexing.
pub struct Bar(ProgressBar);

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{spinner} indexing [{bar:30}] {pos}/{len} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Bar(bar)
    }
}

impl evident_index::Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn advance(&self, path: &str) {
        self.0.set_message(printable(path).into_owned());
        self.0.inc(1);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// An error and its causes, each said once: a cause whose words the message
/// already holds (library errors quote their source) is not repeated.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !out.contains(&cause) {
            out.push_str(": ");
            out.push_str(&cause);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use evident_index::Kind;

    #[test]
    fn numbering_skips_omitted_lines() {
        let ev = Evidence::new(
            "a.py",
            10,
            20,
            Kind::Function,
            "f",
            "def f():\n[... 9 lines omitted: evident read a.py 11 19 ...]\n    return 1",
        );
        let text = numbered(&ev, Paint(false));
        assert!(text.contains("10  def f():"), "{text}");
        assert!(text.contains("20      return 1"), "{text}");
    }

    #[test]
    fn dates_are_civil_utc() {
        assert!(when(0).starts_with("1970-01-01 00:00:00 UTC"));
        assert!(when(1_764_428_252).starts_with("2025-11-29 14:57:32 UTC"));
    }
}
