//! The tools over code: search, definitions, lines, importers, the call
//! graph and references.

use evident_index::{Evidence, Page, SearchGroup, SearchMode, SymbolQuery};
use serde_json::{Map, Value};

use super::arguments::*;
use super::contract::{ToolContext, ToolError, ToolOutput};
use super::summary::*;
use evident_index::SearchQuery;

pub(super) fn search_code(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let query = text(arguments, "query").unwrap_or_default();
    // Hybrid when an embedder is configured; the service says when it fell back.
    let mode = if context.search.has_embedder() {
        SearchMode::Hybrid
    } else {
        SearchMode::Bm25
    };
    let mut request = SearchQuery {
        limit: number(arguments, "limit").unwrap_or(8) as usize,
        kind: kind(arguments)?,
        explain: true,
        group: text(arguments, "group")
            .and_then(SearchGroup::parse)
            .unwrap_or_default(),
        mode,
        ..SearchQuery::new(query)
    };
    let run = |request: &SearchQuery| {
        context
            .search
            .search(&context.root, &index, request)
            .map_err(ToolError::from)
    };
    let mut answer = run(&request)?;
    // How the search ranked (no vectors, say) is said after the results: a
    // small model reads a leading note as an error. A forgiven argument leads.
    let mut ranking = std::mem::take(&mut answer.notes);
    let mut notes = Vec::new();
    if let (true, Some(kind)) = (answer.results.is_empty(), request.kind) {
        request.kind = None;
        answer = run(&request)?;
        ranking.append(&mut answer.notes);
        if !answer.results.is_empty() {
            notes.push(format!(
                "nothing of kind {kind} matched, so the kind was dropped"
            ));
        }
    }
    let mut out = found("results", "", answer.results, named_at);
    if !ranking.is_empty() {
        out.summary = format!("{} (note: {})", out.summary, ranking.join("; "));
    }
    Ok(with_notes(out, notes))
}

pub(super) fn find_symbol(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let mut query = SymbolQuery {
        kind: kind(arguments)?,
        path: text(arguments, "path").map(str::to_string),
        limit: Some(20),
        ..Default::default()
    };
    let mut name = text(arguments, "name")
        .unwrap_or_default()
        .trim()
        .to_string();
    let lookup =
        |name: &str, query: &SymbolQuery| index.symbols(name, query).map_err(ToolError::from);
    let mut results = lookup(&name, &query)?;
    // Small models guess paths and kinds; where the name really is beats "nothing".
    if let (true, Some(path)) = (results.is_empty(), query.path.clone()) {
        let anywhere = SymbolQuery {
            path: None,
            ..query.clone()
        };
        let elsewhere = lookup(&name, &anywhere)?;
        if !elsewhere.is_empty() {
            notes.push(format!(
                "no definitions under {path}, so the path filter was dropped"
            ));
            (query, results) = (anywhere, elsewhere);
        }
    }
    if let (true, Some(kind)) = (results.is_empty(), query.kind) {
        let any_kind = SymbolQuery {
            kind: None,
            ..query.clone()
        };
        let other = lookup(&name, &any_kind)?;
        if !other.is_empty() {
            notes.push(format!(
                "no {kind} is named {name}, so the kind was dropped"
            ));
            (query, results) = (any_kind, other);
        }
    }
    let bare = last_segment(&name).to_string();
    if results.is_empty() && bare != name {
        let plain = SymbolQuery {
            exact: true,
            path: None,
            kind: None,
            ..query.clone()
        };
        let named = lookup(&bare, &plain)?;
        if named.len() == 1 {
            notes.push(format!(
                "no definition is named {name}; {} is the one definition named {bare}",
                named_at(&named[0])
            ));
            (name, results) = (bare, named);
        }
    }
    Ok(with_notes(
        found("definitions", &name, results, named_at),
        notes,
    ))
}

pub(super) fn read_evidence(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let (start, end) = (
        number(arguments, "start_line").unwrap_or(1),
        number(arguments, "end_line").unwrap_or(1),
    );
    let path = text(arguments, "path").unwrap_or_default();
    let evidence = index
        .read(path, start as i64, end as i64)
        .map_err(ToolError::from)?;
    Ok(ToolOutput {
        summary: evidence.location(),
        evidence: vec![evidence],
        whole: true,
    })
}

pub(super) fn find_importers(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let module = text(arguments, "module").unwrap_or_default();
    Ok(found(
        "import sites",
        module.trim(),
        index.importers(module).map_err(ToolError::from)?,
        place,
    ))
}

/// `ingest at ingest.py:5`: the calling definition and the call's line.
pub(super) fn caller_at(ev: &Evidence) -> String {
    format!(
        "{} at {}:{}",
        short_qualified(&ev.name),
        ev.path,
        ev.start_line
    )
}

pub(super) fn get_callers(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let depth = number(arguments, "depth").unwrap_or(1) as u32;
    let callers = index.callers_page(&symbol, path.as_deref(), depth, Page::first(CALLERS_PAGE))?;
    let listed = found_of(
        "call sites",
        &symbol,
        callers.sites,
        callers.total,
        caller_at,
    );
    let out = with_possible(listed, callers.possible);
    Ok(with_notes(out, notes))
}

/// Adds the unresolved call sites that may reach the target, as a group of
/// their own: counted apart in the summary ("no call sites …; 2 possible call
/// sites whose receiver type is unknown: …") and appended to the evidence.
pub(super) fn with_possible(
    mut output: ToolOutput,
    possible: evident_index::Possible,
) -> ToolOutput {
    if possible.total == 0 {
        return output;
    }
    let mut items: Vec<String> = Vec::new();
    for site in &possible.sites {
        let item = caller_at(site);
        if !items.contains(&item) && items.len() < SUMMARY_ITEMS {
            items.push(item);
        }
    }
    let more = possible.total.saturating_sub(items.len());
    let site = if possible.total == 1 { "site" } else { "sites" };
    output.summary = format!(
        "{}; {} possible call {site} whose receiver type is unknown: {}{}",
        output.summary,
        possible.total,
        items.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
    output.evidence.extend(possible.sites);
    output
}

pub(super) fn get_callees(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let calls = index.callees(&symbol, path.as_deref())?;
    // The resolved calls first: they are the answer; the rest are the language's own or unknown.
    let (mut resolved, unresolved): (Vec<Evidence>, Vec<Evidence>) =
        calls.into_iter().partition(|ev| {
            ev.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("calls "))
        });
    let mut out = found(
        "calls to this repository's definitions",
        &symbol,
        resolved.clone(),
        callee_at,
    );
    if !unresolved.is_empty() {
        let names: Vec<String> =
            unresolved
                .iter()
                .map(|ev| ev.name.clone())
                .fold(Vec::new(), |mut v, n| {
                    if !v.contains(&n) && v.len() < SUMMARY_ITEMS {
                        v.push(n);
                    }
                    v
                });
        out.summary.push_str(&format!(
            "; {} other calls (outside the repository or unresolved): {}",
            unresolved.len(),
            names.join(", ")
        ));
    }
    resolved.extend(unresolved);
    out.evidence = resolved;
    Ok(with_notes(out, notes))
}

/// `escape at pkg/text.py:12`, the callee as it resolved.
pub(super) fn callee_at(ev: &Evidence) -> String {
    let target = ev
        .reason
        .as_deref()
        .and_then(|r| r.strip_prefix("calls "))
        .map_or(ev.name.as_str(), short_qualified);
    format!("{target} (called at {}:{})", ev.path, ev.start_line)
}

pub(super) fn find_references(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let sites = index.references(&symbol, path.as_deref())?;
    Ok(with_notes(
        found("references", &symbol, sites, caller_at),
        notes,
    ))
}

pub(super) fn analyze_impact(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let mut notes = Vec::new();
    let requested = text(arguments, "symbol").unwrap_or_default();
    let (symbol, path) = forgiving_target(&index, requested, text(arguments, "path"), &mut notes);
    let depth = number(arguments, "max_depth").unwrap_or(3) as u32;
    let impact = index
        .impact(&symbol, path.as_deref(), depth, 50)
        .map_err(ToolError::from)?;
    let mut out = found("affected definitions", &symbol, impact.nodes, caller_at);
    let (head, items) = out
        .summary
        .split_once(": ")
        .map_or((out.summary.as_str(), ""), |(h, i)| (h, i));
    out.summary = format!(
        "{head} in {} files{}{}{items}",
        impact.files,
        if impact.omitted > 0 {
            format!(" ({} more not shown)", impact.omitted)
        } else {
            String::new()
        },
        if items.is_empty() { "" } else { ": " },
    );
    Ok(with_notes(with_possible(out, impact.possible), notes))
}
