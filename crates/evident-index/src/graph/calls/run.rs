//! The pass driver: marks the calls to resolve, runs the rules over them
//! and writes the edges.

use rusqlite::Connection;

use super::invalidation::Invalidation;
use super::pass::{Confidence, Graph, MAX_BASE_DEPTH};
use super::table::{parent_dir, Loading};
use crate::error::Result;
use crate::lang::imports::Resolver;
use crate::store::graph as rows;

/// Re-resolves the calls `invalid` names and replaces their edges.
/// Returns how many calls were resolved.
/// An incremental run that marks more than 1/`EVERYTHING_PAST` of all call
/// sites, and more than `EVERYTHING_FLOOR`, resolves every call instead (the
/// floor keeps small repositories, and the tests, on the incremental path).
const EVERYTHING_PAST: usize = 3;
const EVERYTHING_FLOOR: usize = 10_000;

pub(crate) fn resolve_calls(
    conn: &Connection,
    resolver: &Resolver,
    invalid: &Invalidation,
) -> Result<usize> {
    // A constructor added to or removed from a class changes what every call
    // of its subclasses runs, wherever they are: resolve everything again.
    let constructors_changed = invalid.constructors_changed();
    if constructors_changed && profiling() {
        eprintln!("profile:   a constructor moved: every call is resolved again");
    }
    let everything = invalid.all || constructors_changed || mark_calls(conn, invalid)?;
    let calls = if everything {
        rows::all_calls_without_edges(conn)?
    } else {
        rows::take_dirty_calls(conn)?
    };
    if calls.is_empty() {
        if everything {
            crate::store::ensure_secondary_indexes(conn)?;
        }
        return Ok(0);
    }
    let t = std::time::Instant::now();
    let loading = if everything {
        Loading::Everything
    } else {
        Loading::AsAsked
    };
    let graph = Graph::load(conn, resolver, loading)?;
    if profiling() {
        eprintln!(
            "profile:   graph load: {:.1} ms for {} calls",
            t.elapsed().as_secs_f64() * 1e3,
            calls.len()
        );
    }
    let mut writing = std::time::Duration::ZERO;
    // A compiler's index decides first where it has an answer (`precise`).
    let scip = crate::scip::Calls::new(conn)?;
    for call in &calls {
        graph.start_consumer_file(call.file);
        if write_scip_answer(conn, &scip, call)? {
            continue;
        }
        let mut targets = graph.resolve(call.file, call.enclosing, &call.callee);
        let outside = if targets.is_empty() {
            graph.outside(call.file, call.enclosing, &call.callee)
        } else {
            None
        };
        let t = std::time::Instant::now();
        for function in graph.arguments_used.borrow().iter() {
            rows::insert_argument_call(conn, call, function)?;
        }
        writing += t.elapsed();
        if targets.is_empty() {
            if let Some((target, kind)) = outside {
                let t = std::time::Instant::now();
                rows::insert_external(conn, call, &target, kind)?;
                writing += t.elapsed();
            }
            continue;
        }
        targets.sort_unstable();
        targets.dedup_by_key(|(id, _)| *id);
        let t = std::time::Instant::now();
        for (callee_id, confidence) in targets {
            rows::insert_edge(conn, call, callee_id, confidence.as_str())?;
        }
        writing += t.elapsed();
    }
    if let Some(e) = graph.take_read_error() {
        return Err(e);
    }
    if everything {
        crate::store::ensure_secondary_indexes(conn)?;
    }
    if profiling() {
        eprintln!(
            "profile:   resolving {:.1} ms, of which writing edges {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3,
            writing.as_secs_f64() * 1e3
        );
    }

    Ok(calls.len())
}

/// Marks the calls `invalid` reaches (`rows::mark_dirty_calls`); `true`
/// when resolving every call costs less than those.
fn mark_calls(conn: &Connection, invalid: &Invalidation) -> Result<bool> {
    // A definition added or removed changes only the files that see it
    // and spell its name; what they tell the types that flow may change.
    let t = std::time::Instant::now();
    let spellers = rows::importers_spelling(conn, &invalid.names_changed)?;
    if profiling() {
        eprintln!(
            "profile:   files spelling a new or removed name: {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    // A changed type flows on through every file that imports the
    // changed one, however indirectly: all their calls are resolved again.
    let flowing =
        rows::importers_closure(conn, invalid.flow_changed_paths().chain(&spellers.leaking))?;
    let calls = rows::call_count(conn)?;
    // Most files resolve again: marking their calls one by one costs more.
    if calls > EVERYTHING_FLOOR && flowing.len() * EVERYTHING_PAST > rows::file_count(conn)? {
        if profiling() {
            eprintln!(
                "profile:   {} files flow on: every call is resolved again",
                flowing.len()
            );
        }
        return Ok(true);
    }
    // A class that gained or lost a subclass: its `self.m()` calls, and
    // its ancestors' (subclass dispatch looks that far down).
    let ancestry =
        rows::files_of_classes_and_ancestors(conn, &invalid.rebased_bases, MAX_BASE_DEPTH)?;
    let paths = (invalid.changed_paths.iter())
        .chain(&flowing)
        .chain(&spellers.leaking)
        .chain(&ancestry)
        .flat_map(|p| with_dir(p));
    // A body edit changes nothing its importers read (rule (c) of
    // `Invalidation`), nor does a change of names alone (its imports and
    // other definitions kept) to the importers that spell none of them: those that do are
    // `spellers`, and calls of the names anywhere are marked by their
    // names. A file that spells a name changes what its importers read only
    // when it leaks it, and then they are all `flowing`; one that imports
    // the name passes it to the importers that spell it; one that does not
    // leak it changes only its own calls that `spellers.calls` holds.
    let reshaped = (invalid.changed_paths.iter())
        .filter(|p| !invalid.surface_kept.contains(*p) && !invalid.names_only.contains(*p));
    let importees = reshaped
        .chain(&flowing)
        .chain(&ancestry)
        .flat_map(|p| with_dir(p));
    let marked = rows::mark_dirty_calls(
        conn,
        invalid.dirty_names(),
        (paths, importees),
        invalid.calls.iter().chain(&spellers.calls),
    )?;
    if profiling() {
        eprintln!(
            "profile:   marked {marked} calls: {} changed, {} flowing on, {} leaking a new or \
             removed name and {} calls spelling one, {} in class ancestry; {} changed only \
             by names, {} dirty names",
            invalid.changed_paths.len(),
            flowing.len(),
            spellers.leaking.len(),
            spellers.calls.len(),
            ancestry.len(),
            invalid.names_changed.len(),
            invalid.dirty_names().count()
        );
    }
    // Dropping most edges one by one (and their index entries) costs far
    // more than dropping them all and resolving everything: a kernel
    // header that thousands of files include marks most calls. The
    // result is the same either way (incremental == rebuild).
    Ok(marked > EVERYTHING_FLOOR && marked > calls / EVERYTHING_PAST)
}

/// A path and its directory (what Go and Java importers import).
fn with_dir(path: &str) -> [&str; 2] {
    [path, parent_dir(path)]
}

fn profiling() -> bool {
    std::env::var_os("EVIDENT_PROFILE").is_some()
}

/// Writes what a compiler's index says the call runs (`precise`), or where
/// outside the repository it goes; `false` when it is silent.
fn write_scip_answer(
    conn: &Connection,
    scip: &crate::scip::Calls<'_>,
    call: &rows::CallSite,
) -> Result<bool> {
    match scip.answer(call.file, call.line, &call.callee)? {
        crate::scip::Answer::Defined(mut ids) => {
            ids.sort_unstable();
            ids.dedup();
            for callee_id in ids {
                rows::insert_edge(conn, call, callee_id, Confidence::Precise.as_str())?;
            }
            Ok(true)
        }
        crate::scip::Answer::Outside(target) => {
            rows::insert_external(conn, call, &target, "external")?;
            Ok(true)
        }
        crate::scip::Answer::Silent => Ok(false),
    }
}
