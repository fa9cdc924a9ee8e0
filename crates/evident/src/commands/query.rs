//! The query commands: each opens the index (warning when it is stale),
//! asks one question, and prints the Evidence.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use evident_index::{Evidence, Index, MapLevel, Page, SymbolQuery};

use super::{emit, open_index, parse_line, parse_position, query_root, timed};
use crate::cli::{
    CallersArgs, DiffArgs, GraphArgs, GraphFormat, ImpactArgs, MapLevelArg, ReadArgs, SourceArgs,
    SymbolArgs,
};
use crate::picture::{Confidence, Picture};
use crate::render;

pub fn symbol(repo: &Option<PathBuf>, json: bool, args: SymbolArgs) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let query = SymbolQuery {
        kind: args.kind,
        path: args.path,
        exact: args.exact,
        limit: Some(args.limit),
    };
    let results = index.symbols(&args.name, &query)?;
    let name = args.name;
    emit(json, &results, &format!("no definitions match {name:?}"))
}

pub fn read(repo: &Option<PathBuf>, json: bool, args: ReadArgs) -> Result<ExitCode> {
    let start = parse_line("start", &args.start)?;
    let end = parse_line("end", &args.end)?;
    let index = open_index(&query_root(repo)?)?;
    let evidence = index.read(&args.path, start, end)?;
    emit(json, &[evidence], "")
}

pub fn importers(repo: &Option<PathBuf>, json: bool, module: &str) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let results = index.importers(module)?;
    emit(json, &results, &format!("nothing imports {module:?}"))
}

pub fn outline(repo: &Option<PathBuf>, json: bool, path: &str) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let results = index.outline(path)?;
    if json || results.is_empty() {
        return emit(json, &results, &format!("{path} has no definitions"));
    }
    render::print_text(&render::outline(&results));
    Ok(ExitCode::SUCCESS)
}

pub fn def(repo: &Option<PathBuf>, json: bool, position: &str) -> Result<ExitCode> {
    let (path, line, col) = parse_position(position)?;
    let index = open_index(&query_root(repo)?)?;
    let results = index.definition_at(&path, line, col)?;
    emit(
        json,
        &results,
        &format!("no definition found for {position}"),
    )
}

/// `def --stdin`: each line of standard input is a position; each answer is
/// one JSON line, so a script or an editor asks many without reopening the
/// index. A bad position is that line's error, not the run's.
pub fn def_lines(repo: &Option<PathBuf>) -> Result<ExitCode> {
    use std::io::{BufRead, Write};
    let index = open_index(&query_root(repo)?)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in std::io::stdin().lock().lines() {
        let line = line.context("reading positions from standard input")?;
        let position = line.trim();
        if position.is_empty() {
            continue;
        }
        let answer = parse_position(position)
            .and_then(|(path, line, col)| Ok(index.definition_at(&path, line, col)?));
        let record = match answer {
            Ok(results) => serde_json::json!({ "position": position, "results": results }),
            Err(e) => serde_json::json!({ "position": position, "error": render::error_text(&e) }),
        };
        writeln!(out, "{record}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn callers(repo: &Option<PathBuf>, json: bool, args: CallersArgs) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let page = Page {
        offset: usize::try_from(args.offset).unwrap_or(usize::MAX),
        limit: args.limit,
    };
    let callers = timed("callers", || {
        index.callers_page(&args.symbol, args.path.as_deref(), args.depth, page)
    })?;
    let symbol = args.symbol;
    // Resolved and possible callers are counted apart: "none resolved" is not "none".
    if callers.total > 0 || callers.possible.total > 0 {
        errln!(
            "{} resolved call site(s){}{}",
            callers.total,
            render::page_shown(page, callers.sites.len(), callers.total),
            render::possible_count(&callers.possible, "; ")
        );
    }
    // The possible sites come with the first page only.
    let possible = if page.offset == 0 {
        callers.possible.sites
    } else {
        Vec::new()
    };
    let all: Vec<Evidence> = callers.sites.into_iter().chain(possible).collect();
    if !json
        && matches!(
            args.format,
            GraphFormat::Dot | GraphFormat::Mermaid | GraphFormat::Svg
        )
    {
        let edges = all
            .iter()
            .map(|site| {
                let confidence = Confidence::of(site.confidence.as_deref().unwrap_or("exact"));
                (node_name(site), symbol.clone(), confidence)
            })
            .collect();
        let picture = Picture {
            roots: vec![symbol.clone()],
            edges,
        };
        out!("{}", draw(args.format, &picture));
        return Ok(found_anything(!all.is_empty()));
    }
    emit(
        json,
        &all,
        &format!("no calls reach {symbol:?}: none resolved, and no unresolved call has its name"),
    )
}

pub fn callees(
    repo: &Option<PathBuf>,
    json: bool,
    symbol: &str,
    path: Option<&str>,
) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let results = index.callees(symbol, path)?;
    emit(json, &results, &format!("{symbol:?} makes no calls"))
}

pub fn impact(repo: &Option<PathBuf>, json: bool, args: ImpactArgs) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let impact = timed("impact", || {
        index.impact(
            &args.symbol,
            args.path.as_deref(),
            args.max_depth,
            args.limit,
        )
    })?;
    let format = if json { GraphFormat::Json } else { args.format };
    out!(
        "{}",
        match format {
            GraphFormat::Text => render::terminal_safe(&render::impact_text(&impact)),
            GraphFormat::Json => render::impact_json(&impact),
            GraphFormat::Dot => render::dot(&impact.edges),
            GraphFormat::Mermaid => render::mermaid(&impact.edges),
            GraphFormat::Svg => draw(format, &impact_picture(&impact)),
        }
    );
    Ok(found_anything(
        !impact.nodes.is_empty() || impact.possible.total > 0,
    ))
}

pub fn diff(repo: &Option<PathBuf>, json: bool, args: DiffArgs) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let report = index.diff(&evident_index::DiffRequest {
        base: args.base,
        staged: args.staged,
        paths: args.paths,
        impact_depth: args.max_depth,
    })?;
    match (json, args.format) {
        (true, _) | (false, GraphFormat::Json) => outln!("{}", render::diff_json(&report)),
        (false, format @ (GraphFormat::Dot | GraphFormat::Mermaid | GraphFormat::Svg)) => {
            out!("{}", draw(format, &diff_picture(&report)));
        }
        (false, GraphFormat::Text) => render::print_text(&render::diff_text(&report)),
    }
    Ok(found_anything(report.files > 0))
}

/// What a diff reaches: each touched definition, and each affected one by
/// its chain back to it.
fn diff_picture(report: &evident_index::DiffReport) -> Picture {
    let mut picture = Picture::default();
    for touched in &report.touched {
        let target = node_name(&touched.evidence);
        picture.roots.push(target.clone());
        for affected in &touched.affected_definitions {
            let mut chain = vec![node_name(affected)];
            chain.extend(affected.via.iter().flatten().cloned());
            chain.dedup();
            if chain.last() != Some(&target) {
                chain.push(target.clone());
            }
            for pair in chain.windows(2) {
                picture
                    .edges
                    .push((pair[0].clone(), pair[1].clone(), Confidence::Resolved));
            }
        }
    }
    picture
}

pub fn graph(repo: &Option<PathBuf>, json: bool, args: GraphArgs) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let (path, format) = (args.path.as_deref(), args.format);
    if let Some(level) = args.level {
        return map(&index, json, level, &args);
    }
    let graph = index.call_graph(path)?;
    match if json { GraphFormat::Json } else { format } {
        GraphFormat::Json | GraphFormat::Text => {
            outln!("{}", serde_json::to_string_pretty(&graph)?)
        }
        drawn => {
            let edges = graph
                .edges
                .iter()
                .map(|e| {
                    let confidence = Confidence::of(&e.confidence);
                    (e.caller.clone(), e.callee.clone(), confidence)
                })
                .collect();
            let picture = Picture {
                roots: Vec::new(),
                edges,
            };
            out!("{}", draw(drawn, &picture));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `evident graph --level`: the dependency map, in the format asked for.
fn map(index: &Index, json: bool, level: MapLevelArg, args: &GraphArgs) -> Result<ExitCode> {
    let level = match level {
        MapLevelArg::Package => MapLevel::Package,
        MapLevelArg::File => MapLevel::File,
        MapLevelArg::Definition => MapLevel::Definition,
    };
    let map = index.dependency_map(level, args.path.as_deref(), args.depth)?;
    match if json { GraphFormat::Json } else { args.format } {
        GraphFormat::Json => outln!("{}", serde_json::to_string_pretty(&map)?),
        GraphFormat::Text => render::print_text(&render::map_text(&map)),
        GraphFormat::Dot => out!("{}", render::map_dot(&map)),
        GraphFormat::Mermaid => out!("{}", render::map_mermaid(&map)),
        GraphFormat::Svg => {
            let (svg, left_out) = crate::picture::map_svg(&map);
            if left_out > 0 {
                errln!(
                    "{left_out} node(s) left out: the {} largest are drawn, each with its heaviest dependencies (--path or --depth for fewer)",
                    crate::picture::MAP_MAX_NODES
                );
            }
            out!("{svg}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The impact walk as a picture: the edges walked, and the possible calls
/// into the targets, dotted.
fn impact_picture(impact: &evident_index::Impact) -> Picture {
    let roots: Vec<String> = impact
        .targets
        .iter()
        .map(|t| t.qualified_name.clone())
        .collect();
    let mut edges: Vec<(String, String, Confidence)> = impact
        .edges
        .iter()
        .map(|(caller, callee)| (caller.clone(), callee.clone(), Confidence::Resolved))
        .collect();
    if let Some(target) = roots.first() {
        edges.extend(
            impact
                .possible
                .sites
                .iter()
                .map(|site| (node_name(site), target.clone(), Confidence::Possible)),
        );
    }
    Picture { roots, edges }
}

/// A node of a picture: the definition's qualified name, else its name.
fn node_name(evidence: &Evidence) -> String {
    evidence
        .qualified_name
        .clone()
        .unwrap_or_else(|| evidence.name.clone())
}

/// `picture` as Graphviz, Mermaid or SVG (`--format`); an SVG that left
/// nodes out says so on stderr too.
fn draw(format: GraphFormat, picture: &Picture) -> String {
    let plain = || -> Vec<(String, String)> {
        picture
            .edges
            .iter()
            .map(|(caller, callee, _)| (caller.clone(), callee.clone()))
            .collect()
    };
    match format {
        GraphFormat::Dot => render::dot(&plain()),
        GraphFormat::Mermaid => render::mermaid(&plain()),
        _ => {
            let (svg, left_out) = crate::picture::svg(picture);
            if left_out > 0 {
                errln!(
                    "{left_out} node(s) left out: the {} nearest the roots are drawn",
                    crate::picture::MAX_NODES
                );
            }
            svg
        }
    }
}

pub fn status(repo: &Option<PathBuf>, json: bool) -> Result<ExitCode> {
    let index = Index::open(&query_root(repo)?)?;
    // Damage first: the counts below would fail on it with less to say.
    index.check_damage()?;
    let status = index.status()?;
    if json {
        outln!("{}", render::status_json(&status));
    } else {
        render::print_text(&render::status(&status));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn sources(repo: &Option<PathBuf>, json: bool, name_contains: &str) -> Result<ExitCode> {
    let index = open_index(&query_root(repo)?)?;
    let results = index.sources(name_contains)?;
    let empty = format!("no documents match {name_contains:?}");
    if json {
        return emit(true, &results, &empty);
    }
    render::print_text(&render::sources(&results));
    if results.is_empty() {
        errln!("{empty}");
    }
    Ok(found_anything(!results.is_empty()))
}

pub fn source(repo: &Option<PathBuf>, json: bool, args: SourceArgs) -> Result<ExitCode> {
    let part = match (args.section, args.lines) {
        (Some(title), _) => evident_index::SourcePart::Section(title),
        (None, Some(range)) => {
            let (a, b) = range
                .split_once('-')
                .with_context(|| format!("--lines {range:?}: expected A-B, like 10-40"))?;
            let (a, b) = (parse_line("start", a)?, parse_line("end", b)?);
            evident_index::SourcePart::Lines(
                u32::try_from(a).unwrap_or(0),
                u32::try_from(b).unwrap_or(0),
            )
        }
        (None, None) => evident_index::SourcePart::Start,
    };
    let index = open_index(&query_root(repo)?)?;
    let evidence = index.source(&args.doc_id, &part)?;
    emit(json, &[evidence], "")
}

/// Exit 0 when something was found, 1 when nothing was.
fn found_anything(found: bool) -> ExitCode {
    if found {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
