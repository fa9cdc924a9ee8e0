//! `evident mcp`: the agent's read-only tools, for other agents, over stdio
//! until the client closes stdin.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::settings::Settings;
use anyhow::{Context, Result};
use evident_agent::{SearchService, ToolContext};

use crate::cli::McpArgs;
use crate::model;

pub fn serve(root: &Path, args: McpArgs) -> Result<ExitCode> {
    let root = root
        .canonicalize()
        .with_context(|| format!("repository {}", root.display()))?;
    let log = log_to(args.log_file)?;
    // A broken evident.toml must not stop the server: each call reports it
    // (the index reads it per call) and a mended file works without a restart.
    let search = match Settings::load(&root) {
        Ok(settings) => {
            model::search_service_or_full_text(&args.embed, &settings, &mut |warning| {
                log.line(warning)
            })
        }
        Err(error) => {
            let why = format!("the settings could not be read ({error})");
            log.line(&evident_agent::search::bm25_only(&why));
            SearchService::without_embedder(why)
        }
    };
    let context = ToolContext {
        search,
        ..ToolContext::plain(&root)
    };
    let options = evident_mcp::ServerOptions {
        root,
        max_output_bytes: args.max_output_bytes as usize,
        refresh_wait: Duration::from_millis(args.refresh_wait),
        check_interval: Duration::from_millis(250),
        embed_in_background: !args.no_embed,
        log,
    };
    evident_mcp::serve_stdio(options, context)?;
    Ok(ExitCode::SUCCESS)
}

/// The log: appended to `file`, else stderr (stdout carries only protocol messages).
fn log_to(file: Option<PathBuf>) -> Result<evident_agent::Log> {
    Ok(match file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .with_context(|| format!("log file {}", path.display()))?;
            evident_agent::Log::to(Box::new(file))
        }
        None => evident_agent::Log::stderr(),
    })
}
