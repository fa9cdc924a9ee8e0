//! One function per command. Each opens what it needs, calls the library
//! crates, and hands the result to `render.rs`; wording and exit codes are
//! decided here and in `main.rs`, never in the libraries.

pub mod indexing;
pub mod mcp;
pub mod probe;
pub mod query;
pub mod search;
pub mod serve;
pub mod setup;
pub mod shell;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use evident_index::{Evidence, Index};

use crate::render;

pub fn parse_line(what: &str, s: &str) -> Result<i64> {
    s.trim()
        .parse::<i64>()
        .map_err(|_| anyhow::anyhow!("invalid argument: {what} line {s:?} is not a number"))
}

/// `PATH:LINE[:COL]`, where PATH may itself contain colons.
pub fn parse_position(position: &str) -> Result<(String, u32, Option<u32>)> {
    let bad = || {
        anyhow::anyhow!("invalid argument: expected PATH:LINE or PATH:LINE:COL, got {position:?}")
    };
    let parts: Vec<&str> = position.rsplitn(3, ':').collect();
    let number = |s: &str| s.parse::<u32>().ok().filter(|n| *n > 0);
    match parts.as_slice() {
        [col, line, path] if number(col).is_some() && number(line).is_some() => {
            Ok((path.to_string(), number(line).ok_or_else(bad)?, number(col)))
        }
        [line, rest @ ..] if number(line).is_some() && !rest.is_empty() => {
            let path = rest.iter().rev().copied().collect::<Vec<_>>().join(":");
            Ok((path, number(line).ok_or_else(bad)?, None))
        }
        _ => Err(bad()),
    }
}

/// A flag set by the first Ctrl-C (the run stops after its current batch);
/// a second Ctrl-C exits at once, and the open transaction rolls back.
pub fn stop_after_batch_on_ctrl_c() -> Arc<AtomicBool> {
    let cancel = Arc::new(AtomicBool::new(false));
    let handler_flag = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        if handler_flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        errln!("\nstopping after the current batch (Ctrl-C again to stop now)…");
    });
    cancel
}

/// A progress bar on stderr when it is a terminal and output is not suppressed.
pub fn progress_bar(suppressed: bool) -> Option<Arc<dyn evident_index::Progress>> {
    (!suppressed && std::io::stderr().is_terminal())
        .then(|| Arc::new(render::Bar::new()) as Arc<dyn evident_index::Progress>)
}

/// Runs `step`, printing its time on stderr when `EVIDENT_PROFILE` is set.
pub fn profiled<T>(name: &str, step: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let result = step();
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        errln!(
            "profile: {name}: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    result
}

/// Runs a query, printing its own time on stderr when `EVIDENT_PROFILE` is set
/// (the benchmarks read it: the command's total also includes the stale check).
pub fn timed<T>(
    name: &str,
    query: impl FnOnce() -> evident_index::Result<T>,
) -> evident_index::Result<T> {
    let started = std::time::Instant::now();
    let result = query();
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        errln!(
            "profile: query {name}: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    result
}

pub fn query_root(cli_repo: &Option<PathBuf>) -> Result<PathBuf> {
    match cli_repo {
        Some(p) => {
            if !p.exists() {
                anyhow::bail!("{} does not exist", p.display());
            }
            Ok(p.clone())
        }
        None => Ok(evident_index::find_root(
            &std::env::current_dir().context("current directory")?,
        )),
    }
}

/// Opens the index for a query and warns on stderr when it is stale. In the
/// daemon, the index it holds open and keeps current (no stat walk).
pub fn open_index(root: &Path) -> Result<Rc<Index>> {
    if let Some(index) = crate::resident::index_for(root) {
        return Ok(index);
    }
    let index = Rc::new(Index::open(root)?);
    if !index.last_run_complete()? {
        errln!("warning: the last `evident index` run did not finish; run `evident index` to complete it");
    }
    let stale = index.staleness()?;
    if index.read_only_medium() {
        errln!(
            "note: the index is on a read-only file system: results are as of the last `evident index`{}",
            if stale.is_stale() { ", and files have changed since" } else { "" }
        );
    } else if stale.is_stale() {
        let example = stale
            .modified
            .iter()
            .chain(&stale.added)
            .chain(&stale.deleted)
            .next()
            .cloned()
            .unwrap_or_default();
        errln!(
            "warning: the index is stale: {} file(s) changed since it was built (e.g. {}); run `evident index`",
            stale.changed(),
            evident_index::printable(&example)
        );
    }
    Ok(index)
}

pub fn emit(json: bool, results: &[Evidence], empty_message: &str) -> Result<ExitCode> {
    if results.is_empty() {
        if json {
            outln!("[]");
        }
        errln!("{empty_message}");
        return Ok(ExitCode::from(1));
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(results)?);
    } else {
        out!(
            "{}",
            render::evidence_list(results, render::Paint(crate::console::paint()))
        );
    }
    Ok(ExitCode::SUCCESS)
}
