//! The spans of a query ([`spans`]) resolved against the index, the way the
//! CLI resolves a PATH or a SYMBOL argument: a path by its trailing
//! components (`/usr/lib/python3/site-packages/click/core.py` is the
//! repository's `src/click/core.py`), a dotted name by the longest prefix
//! that is a module (`httpx._client.Client` is `Client` in `httpx/_client.py`)
//! and then by qualified-name suffix, a frame by its file and then its
//! function. A span that names an indexed file or definition is a mention:
//! evidence for it, weighed by how surely the span names it.

use rusqlite::Connection;

use crate::error::Result;
use crate::modules::{self, definitions_for, FileTable, MAX_AMBIGUITY};
use crate::search::spans::{Span, SpanKind};
use crate::store::chunks::{self, NamedDefinition};

/// A file or a definition a span names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mention {
    pub file_id: i64,
    pub path: String,
    pub symbol: Option<i64>,
    /// A frame's line, in the file as the writer had it.
    pub line: Option<u32>,
    /// How surely the span names it, 0 to 1.
    pub strength: f64,
    /// The span, by index into the query's spans.
    pub span: usize,
    /// Named as what the span's definition calls, not by the span itself.
    pub called: bool,
    /// In the area a scope names ([`SpanKind::Scope`]): lifts what the
    /// words found there and brings in nothing.
    pub area: bool,
}

/// How surely each kind of span names what it resolves to. A traceback or a
/// written path names a file outright; a name written as code, less so (it
/// may be the caller's); a name in a code block is often the user's own
/// code's call into the library; an exception's type is raised in many
/// places and defined in one, seldom the one to change.
fn strength_of(kind: SpanKind, segments: usize) -> f64 {
    match kind {
        SpanKind::Frame | SpanKind::Path => 1.0,
        SpanKind::Name if segments > 1 => 0.7,
        SpanKind::Name => 0.5,
        SpanKind::Code => 0.4,
        SpanKind::Error => 0.3,
        SpanKind::Scope => 0.5,
    }
}

/// The mentions of `spans`, each span's in order, then what the named
/// definitions call, at `callee_share` of their strength ([`named_callees`]).
pub(crate) fn resolve(
    conn: &Connection,
    spans: &[Span],
    callee_share: f64,
) -> Result<Vec<Mention>> {
    if spans.is_empty() {
        return Ok(Vec::new());
    }
    let files = FileTable::of_index(conn)?;
    let mut out = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        let found = match span.kind {
            SpanKind::Frame => resolve_frame(conn, &files, span)?,
            SpanKind::Path => files
                .for_path(span.path.as_deref().unwrap_or(""))
                .into_iter()
                .map(|f| (f, None, 1.0))
                .collect(),
            SpanKind::Name | SpanKind::Code | SpanKind::Error => {
                resolve_name(conn, &files, span.name.as_deref().unwrap_or(""))?
            }
            SpanKind::Scope => in_scope(&files, span.name.as_deref().unwrap_or("")),
        };
        let area = span.kind == SpanKind::Scope;
        let segments = span.name.as_deref().map_or(1, |n| n.split('.').count());
        // Each of the files an ambiguous span may name gets a share; every
        // file of a named area is in it alike.
        let among = if area { 1 } else { found.len().max(1) };
        let strength = strength_of(span.kind, segments) / among as f64;
        for (file, symbol, share) in found {
            out.push(Mention {
                file_id: files.ids[file],
                path: files.paths[file].clone(),
                symbol,
                line: span.line,
                strength: strength * share,
                span: i,
                called: false,
                area,
            });
        }
    }
    grade_frames(&mut out, spans);
    if callee_share > 0.0 {
        let callees = named_callees(conn, &files, spans, &out, callee_share)?;
        out.extend(callees);
    }
    Ok(out)
}

/// The files in the area a scope names (`printer`, `mm/slab`): those with a
/// directory, or a file stem, that is one of the scope's parts, or holds it
/// as a `-` or `_` separated word (`printer` is `crates/grep-printer/`).
/// Matched without case; a part no path holds matches nothing, and nor
/// does an area of more than half the files.
fn in_scope(files: &FileTable, scope: &str) -> Vec<(usize, Option<i64>, f64)> {
    let parts: Vec<String> = scope.split('/').map(str::to_lowercase).collect();
    let names = |component: &str| {
        let component = component.to_lowercase();
        parts
            .iter()
            .any(|p| component == *p || component.split(['-', '_']).any(|word| word == p.as_str()))
    };
    let in_area = |path: &str| {
        let mut components: Vec<&str> = path.split('/').collect();
        let file = components.pop().unwrap_or("");
        let stem = file.split_once('.').map_or(file, |(stem, _)| stem);
        components.into_iter().any(names) || names(stem)
    };
    let area: Vec<(usize, Option<i64>, f64)> = (0..files.paths.len())
        .filter(|&f| in_area(&files.paths[f]))
        .map(|f| (f, None, 1.0))
        .collect();
    // An area of more than half the project (`src:`) tells nothing apart.
    if area.len() * 2 > files.paths.len() {
        return Vec::new();
    }
    area
}

/// A trace's frames are not equal evidence: the innermost frame in the
/// repository is where the failure surfaced, and each frame further out is
/// less likely the one to change, so the k-th from the innermost names its
/// file with 1/k. Python writes the innermost frame last; JavaScript, the
/// JVM, Rust and Go write it first.
fn grade_frames(mentions: &mut [Mention], spans: &[Span]) {
    let mut framed: Vec<usize> = mentions
        .iter()
        .filter(|m| spans[m.span].kind == SpanKind::Frame)
        .map(|m| m.span)
        .collect();
    framed.dedup();
    for innermost_last in [true, false] {
        let mut trace: Vec<usize> = framed
            .iter()
            .copied()
            .filter(|&s| spans[s].innermost_last() == innermost_last)
            .collect();
        if innermost_last {
            trace.reverse();
        }
        for (k, span) in trace.into_iter().enumerate() {
            for m in mentions.iter_mut().filter(|m| m.span == span) {
                m.strength /= (k + 1) as f64;
            }
        }
    }
}

/// What the named definitions run, named in turn: a report names the API
/// it called (`response.iter_lines()`) and the fault is often in what that
/// calls (the line decoder in another file). Each named definition shares
/// `share ×` its strength among its callees' files (a wrapper's one callee
/// takes it all); its own file's callees are already named with it. A
/// frame's function lends nothing: what it ran that failed is the next
/// frame, already named.
fn named_callees(
    conn: &Connection,
    files: &FileTable,
    spans: &[Span],
    mentions: &[Mention],
    share: f64,
) -> Result<Vec<Mention>> {
    let by_name = |m: &&Mention| spans[m.span].kind != SpanKind::Frame;
    let named: Vec<i64> = mentions
        .iter()
        .filter(by_name)
        .filter_map(|m| m.symbol)
        .collect();
    let edges = chunks::callees_of(conn, &named)?;
    let mut out = Vec::new();
    for m in mentions.iter().filter(by_name) {
        let Some(symbol) = m.symbol else { continue };
        let elsewhere: Vec<&(i64, i64, i64)> = edges
            .iter()
            .filter(|(caller, _, file)| *caller == symbol && *file != m.file_id)
            .collect();
        let mut callee_files: Vec<i64> = elsewhere.iter().map(|e| e.2).collect();
        callee_files.sort_unstable();
        callee_files.dedup();
        let strength = share * m.strength / callee_files.len().max(1) as f64;
        for &(_, callee, file_id) in elsewhere {
            let Some(file) = files.index_of(file_id) else {
                continue;
            };
            out.push(Mention {
                file_id,
                path: files.paths[file].clone(),
                symbol: Some(callee),
                line: None,
                strength,
                span: m.span,
                called: true,
                area: false,
            });
        }
    }
    Ok(out)
}

/// `(file, definition, share)`: what one span resolved to.
type Found = Vec<(usize, Option<i64>, f64)>;

/// A frame: its file, then its function in that file (the one enclosing
/// its line when several share the name). A frame outside the repository
/// (a library's, the user's script) names nothing.
fn resolve_frame(conn: &Connection, files: &FileTable, span: &Span) -> Result<Found> {
    let candidates = files.for_path(span.path.as_deref().unwrap_or(""));
    let Some(name) = span.name.as_deref() else {
        return Ok(candidates.into_iter().map(|f| (f, None, 0.8)).collect());
    };
    let named = definitions_for(conn, name)?;
    let mut out = Vec::new();
    for file in candidates {
        let defs: Vec<&NamedDefinition> = named
            .iter()
            .filter(|d| d.file_id == files.ids[file])
            .collect();
        let enclosing = span
            .line
            .and_then(|l| defs.iter().find(|d| d.start <= l && l <= d.end));
        match enclosing.or(defs.first()) {
            Some(d) => out.push((file, Some(d.id), 1.0)),
            None => out.push((file, None, 0.8)),
        }
    }
    Ok(out)
}

/// A dotted name: the longest prefix that is a module names a file, and the
/// rest a definition in it (or the file itself when nothing is left); else
/// the definitions its segments end, the longest tail first (at least two
/// segments, when it has them, before the last alone is tried).
fn resolve_name(conn: &Connection, files: &FileTable, name: &str) -> Result<Found> {
    let segments: Vec<&str> = name.split('.').filter(|s| !s.is_empty()).collect();
    if segments.is_empty() {
        return Ok(Vec::new());
    }
    for split in (1..=segments.len()).rev() {
        let modules = files.for_module(&segments[..split]);
        if modules.is_empty() || modules.len() > MAX_AMBIGUITY {
            continue;
        }
        let rest = &segments[split..];
        if rest.is_empty() {
            return Ok(modules.into_iter().map(|f| (f, None, 1.0)).collect());
        }
        let defs = definitions_for(conn, &rest.join("."))?;
        let mut inside: Found = defs
            .iter()
            .filter_map(|d| {
                let file = modules.iter().find(|&&f| files.ids[f] == d.file_id)?;
                Some((*file, Some(d.id), 1.0))
            })
            .collect();
        if inside.is_empty() {
            inside = modules::exported(conn, files, &modules, rest)?
                .into_iter()
                .filter_map(|d| Some((files.index_of(d.file_id)?, Some(d.id), 1.0)))
                .collect();
        }
        if !inside.is_empty() && inside.len() <= MAX_AMBIGUITY {
            return Ok(inside);
        }
    }
    let shortest = if segments.len() > 1 { 2 } else { 1 };
    for take in (shortest..=segments.len()).rev() {
        let tail = segments[segments.len() - take..].join(".");
        let defs = definitions_for(conn, &tail)?;
        if !defs.is_empty() {
            if defs.len() > MAX_AMBIGUITY {
                return Ok(Vec::new());
            }
            return Ok(defs
                .iter()
                .filter_map(|d| Some((files.index_of(d.file_id)?, Some(d.id), 1.0)))
                .collect());
        }
    }
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_frame_of_a_trace_is_the_surest() {
        let strengths = |text: &str| {
            let spans = crate::search::spans::read(text);
            let mut mentions: Vec<Mention> = (0..spans.len())
                .map(|span| Mention {
                    file_id: span as i64,
                    path: String::new(),
                    symbol: None,
                    line: None,
                    strength: 1.0,
                    span,
                    called: false,
                    area: false,
                })
                .collect();
            grade_frames(&mut mentions, &spans);
            let frames = mentions
                .iter()
                .filter(|m| spans[m.span].kind == SpanKind::Frame);
            frames.map(|m| m.strength).collect::<Vec<f64>>()
        };
        // Python writes the innermost frame last.
        let python = "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n  \
                      File \"b.py\", line 2, in g\n  File \"c.py\", line 3, in h\nKeyError: 1";
        assert_eq!(strengths(python), [1.0 / 3.0, 0.5, 1.0]);
        // JavaScript, the JVM, Rust and Go write it first.
        let js = "TypeError: x\n    at h (lib/c.js:3:1)\n    at g (lib/b.js:2:1)";
        assert_eq!(strengths(js), [1.0, 0.5]);
        let java = "\tat com.acme.Wire.settle(Wire.java:4)\n\tat com.acme.Main.main(Main.java:9)";
        assert_eq!(strengths(java), [1.0, 0.5]);
        let go =
            "goroutine 1 [running]:\nexample.com/w.(*Conn).Settle(...)\n\t/src/w/wire.go:6 +0x1d\n\
                  main.main()\n\t/src/w/main.go:9 +0x2";
        assert_eq!(strengths(go), [1.0, 0.5]);
        let rust = "stack backtrace:\n   0: w::settle\n             at ./src/wire.rs:2:5\n   \
                    1: w::main\n             at ./src/main.rs:9:5";
        assert_eq!(strengths(rust), [1.0, 0.5]);
    }
}
