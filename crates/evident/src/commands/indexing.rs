//! The commands that write under `.evident/`: `index` and `embed`. Both stop
//! after the current batch on Ctrl-C, keeping what was committed.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::settings::Settings;
use anyhow::{Context, Result};
use evident_index::{Embedder, IndexOptions, ParseCacheSettings};

use super::{profiled, progress_bar, stop_after_batch_on_ctrl_c};
use crate::cli::{EmbedCommandArgs, IndexArgs};
use crate::{model, render};

pub fn index(repo: Option<PathBuf>, json: bool, args: IndexArgs) -> Result<ExitCode> {
    let root = match args.path.or(repo) {
        Some(p) => p,
        None => std::env::current_dir().context("current directory")?,
    };
    // One Ctrl-C handler per process: indexing and the embedding step share it.
    let cancel = stop_after_batch_on_ctrl_c();
    let settings = Settings::load(&root)?;
    let options = IndexOptions {
        rebuild: args.rebuild,
        check: args.check,
        max_file_size: args.max_file_size,
        batch_size: args.batch_size,
        cancel: Some(cancel.clone()),
        progress: progress_bar(args.quiet || json),
        parse_cache: ParseCacheSettings::for_user(settings.index.cache.max_mib),
        // Named from the command line: relative to where it was typed.
        scip: args.scip.map(|p| std::path::absolute(&p).unwrap_or(p)),
        walk_memory: crate::resident::walk_memory(),
    };
    let summary = profiled("index run", || evident_index::index_repo(&root, &options))?;
    if !json && !args.quiet {
        render::print_text(&render::summary(&summary));
    }
    let embedding = if args.no_embed {
        serde_json::json!({"skipped": "--no-embed"})
    } else {
        profiled("embed the new chunks", || {
            embed_after_index(&root, &args.embed, args.quiet || json, cancel)
        })?
    };
    if json {
        outln!("{}", render::summary_json(&summary, embedding));
    }
    Ok(ExitCode::SUCCESS)
}

/// Embeds the chunks the run added or changed, when an embedder is there (the
/// default one, or the one configured). The index is complete without vectors,
/// so an embedder that fails is a warning: search uses the vectors it has.
/// Returns what happened, for `--json`.
fn embed_after_index(
    root: &std::path::Path,
    args: &model::EmbedArgs,
    quiet: bool,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<serde_json::Value> {
    let settings = Settings::load(root)?;
    // With every chunk embedded by the static table in force, there is
    // nothing to load it for (a run that changed nothing stays quick).
    if let Some(name) = model::static_embedder_name(args, &settings) {
        let index = evident_index::Index::open(root)?;
        if index.vectors_pending(&name)? == 0 {
            let summary = evident_index::EmbedSummary {
                with_vectors: index.vector_count(&name)?,
                ..Default::default()
            };
            return Ok(render::embed_summary_value(&summary, &name));
        }
    }
    model::fetch_default_if_missing(args, &settings);
    let embedder = match model::embedder(args, &settings) {
        Ok(Some(embedder)) => embedder,
        Ok(None) => return Ok(serde_json::json!({"skipped": model::NO_EMBEDDER})),
        Err(error) => {
            errln!("warning: no vectors this run: the embedding model did not load ({error:#})");
            return Ok(serde_json::json!({"error": format!("{error:#}")}));
        }
    };
    let options = evident_index::EmbedOptions {
        batch_size: None,
        cancel: Some(cancel),
        progress: progress_bar(quiet),
    };
    match evident_index::embed_chunks(root, &embedder, &options) {
        Ok(summary) => {
            if !quiet && summary.embedded > 0 {
                out!(
                    "{}",
                    render::embed_summary(&summary, embedder.model(), &embedder.location())
                );
            }
            Ok(render::embed_summary_value(&summary, embedder.model()))
        }
        Err(evident_index::Error::Interrupted) => Err(evident_index::Error::Interrupted.into()),
        Err(error) => {
            errln!(
                "warning: embedding stopped ({error}); search uses the vectors there are, and `evident embed` resumes"
            );
            Ok(serde_json::json!({"error": error.to_string(), "model": embedder.model()}))
        }
    }
}

pub fn embed(repo: Option<PathBuf>, json: bool, args: EmbedCommandArgs) -> Result<ExitCode> {
    let root = match repo {
        Some(p) => p,
        None => std::env::current_dir().context("current directory")?,
    };
    let Some(embedder) = model::embedder(&args.embed, &Settings::load(&root)?)? else {
        anyhow::bail!(
            "no embedding model chosen: pass --embed-provider local (the built-in model; scripts/fetch-embed-model.sh fetches it) or --embed-model NAME for a server, set [embed] in evident.toml, or set EVIDENT_EMBED_MODEL"
        );
    };
    let options = evident_index::EmbedOptions {
        batch_size: args.batch_size,
        cancel: Some(stop_after_batch_on_ctrl_c()),
        progress: progress_bar(args.quiet || json),
    };
    let summary = evident_index::embed_chunks(&root, &embedder, &options)?;
    if json {
        outln!("{}", render::embed_summary_json(&summary, embedder.model()));
    } else if !args.quiet {
        out!(
            "{}",
            render::embed_summary(&summary, embedder.model(), &embedder.location())
        );
    }
    Ok(ExitCode::SUCCESS)
}
