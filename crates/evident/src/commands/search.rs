//! `evident search`: one query through the shared search service (the same
//! one the agent's and MCP's `search_code` use), notes on stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::settings::Settings;
use anyhow::Result;
use evident_agent::{Reranker, SearchService};
use evident_index::SearchQuery;
use evident_index::Signals;

use super::{emit, open_index, profiled, query_root};
use crate::cli::{SearchArgs, SearchMode};
use crate::model;

pub fn search(repo: &Option<PathBuf>, json: bool, args: SearchArgs) -> Result<ExitCode> {
    let root = query_root(repo)?;
    let index = open_index(&root)?;
    let settings = Settings::load(&root)?;
    // A rerank without a model configured is an error before any work, not a silent fallback.
    let reranker = args
        .rerank
        .then(|| model::choose(&args.model, &settings))
        .transpose()?
        .map(|choice| Reranker {
            client: choice.client,
            model: choice.model,
            top: args.rerank_top,
            budget: Duration::from_secs_f64(args.rerank_budget.max(0.0)),
        });
    let mode = match args.mode {
        SearchMode::Bm25 => evident_index::SearchMode::Bm25,
        SearchMode::Vector => evident_index::SearchMode::Vector,
        SearchMode::Hybrid => evident_index::SearchMode::Hybrid,
    };
    // The embedder is loaded only when the mode can use it.
    let mut service = if mode == evident_index::SearchMode::Bm25 {
        SearchService::without_embedder("BM25 was asked for")
    } else {
        profiled("load embedder", || {
            model::search_service(&args.embed, &settings)
        })?
    };
    if let Some(reranker) = reranker {
        service = service.with_reranker(reranker);
    }
    let group = match args.group {
        crate::cli::SearchGroup::Chunk => evident_index::SearchGroup::Chunk,
        crate::cli::SearchGroup::File => evident_index::SearchGroup::File,
        crate::cli::SearchGroup::Definition => evident_index::SearchGroup::Definition,
    };
    let signals = if args.signal.is_empty() {
        None
    } else {
        let mut signals = Signals::for_group(group);
        for assignment in &args.signal {
            signals.set(assignment)?;
        }
        Some(signals)
    };
    let request = SearchQuery {
        limit: args.limit,
        kind: args.kind,
        path: args.path,
        language: args.language,
        explain: args.explain,
        group,
        signals,
        mode,
        ..SearchQuery::new(args.query.clone())
    };
    let answer = service.search(&root, &index, &request)?;
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        for (step, took) in &answer.timings {
            let step = if *step == "search" {
                "query search"
            } else {
                step
            };
            errln!("profile: {step}: {:.2} ms", took.as_secs_f64() * 1e3);
        }
    }
    for note in &answer.notes {
        errln!("note: {note}");
    }
    let query = args.query;
    emit(json, &answer.results, &format!("nothing matches {query:?}"))
}
