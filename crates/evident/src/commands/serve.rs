//! `evident serve`: the index for a browser on this machine, until Ctrl-C.

use std::path::Path;
use std::process::ExitCode;

use crate::settings::Settings;
use anyhow::{Context, Result};
use evident_agent::{SearchService, ToolContext};

use crate::cli::ServeArgs;
use crate::model;

/// Requests answered at once: a page asks for a few things together.
const WORKERS: usize = 4;

pub fn serve(root: &Path, args: ServeArgs) -> Result<ExitCode> {
    let root = root
        .canonicalize()
        .with_context(|| format!("repository {}", root.display()))?;
    let settings = Settings::load(&root);
    let search = match &settings {
        Ok(settings) => model::search_service_or_full_text(&args.embed, settings, &mut |warning| {
            eprintln!("{warning}")
        }),
        Err(error) => {
            let why = format!("the settings could not be read ({error})");
            eprintln!("{}", evident_agent::search::bm25_only(&why));
            SearchService::without_embedder(why)
        }
    };
    // The ask page needs a chat model; without one it says why.
    let ask = match &settings {
        Ok(settings) => model::choose(&args.model, settings)
            .map(|choice| evident_serve::AskSetup {
                client: choice.client,
                model: choice.model,
                protocol: choice.protocol,
                limits: evident_agent::Limits::default(),
            })
            .map_err(|error| format!("{error:#}")),
        Err(error) => Err(format!("the settings could not be read ({error})")),
    };
    let context = ToolContext {
        search,
        ..ToolContext::plain(&root)
    };
    let options = evident_serve::ServeOptions {
        root: root.clone(),
        port: args.port,
        ask,
        refresh_wait: std::time::Duration::from_millis(args.refresh_wait),
        door: evident_serve::DoorLimits::default(),
    };
    let server = std::sync::Arc::new(evident_serve::Server::bind(options, context)?);
    // Installed, not inherited: a shell starting `evident serve &` from a
    // script leaves SIGINT ignored, and Ctrl-C or `kill -INT` must stop it.
    let stopping = server.clone();
    ctrlc::set_handler(move || stopping.stop())
        .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))?;
    // The URL carries the run's token: it goes to the terminal only.
    println!("evident serve: {} ({})", server.url(), root.display());
    println!("read-only, 127.0.0.1 only; Ctrl-C stops it");
    if args.open {
        open_in_browser(&server.url());
    }
    server.run(WORKERS);
    Ok(ExitCode::SUCCESS)
}

/// Hands the URL to the desktop's opener; says so when there is none.
fn open_in_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(error) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("could not open a browser ({opener}: {error}); open the URL above");
    }
}
