//! `evident`: the command-line edge. Parses arguments (`cli.rs`), runs one
//! command (`commands/`, `agent.rs`), or has the repository's daemon run it
//! (`daemon/`), renders Evidence as text or JSON (`render.rs`) through the
//! console (`console.rs`), and maps errors to exit codes (0: results, 1: no
//! results, 2: error, 130: interrupted; `ask` adds 3: round limit, 4:
//! denied). It holds no indexing, query or agent logic of its own.

#[macro_use]
mod console;
mod agent;
mod cli;
mod commands;
mod daemon;
mod model;
mod picture;
mod render;
mod resident;
mod settings;

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches};
use evident_index::Error;

use cli::{Cli, Command};
use commands::{indexing, mcp, probe, query, query_root, search, serve, setup, shell};

// Indexing allocates and frees millions of small tree nodes; mimalloc does that
// markedly faster than glibc (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn use_mimalloc_for_tree_sitter() {
    use libmimalloc_sys as mi;
    // SAFETY: called first thing in main, before any tree or parser exists,
    // so no memory is freed by a different allocator than the one that made it.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: mi::mi_malloc,
            calloc: mi::mi_calloc,
            realloc: mi::mi_realloc,
            free: mi::mi_free,
        }));
    }
}

fn main() -> ExitCode {
    use_mimalloc_for_tree_sitter();
    let cli = parse_command_line();
    // Asked before SIGPIPE is restored below: a socket write must never raise it.
    let answered = daemon::answer_through_daemon(&cli);
    if answered.is_some() || cli.command.only_reads_the_index() {
        // `evident def ... | head`: a reader that stops early ends the
        // command quietly, as for any Unix filter, instead of a panic in
        // `println!`. Only for commands that read the index and talk to no
        // server: a socket write must never raise the signal.
        // SAFETY: at startup, before any thread exists; SIG_DFL is a valid handler.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    if let Some(answered) = answered {
        return answered.print();
    }
    let started = std::time::Instant::now();
    let profile = std::env::var_os("EVIDENT_PROFILE").is_some();
    let code = execute(cli);
    if profile {
        errln!(
            "profile: command: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    code
}

/// The command line, with clap's own help and errors coloured as `--color`
/// says (it is read before clap parses anything).
fn parse_command_line() -> Cli {
    let choice = match shell::color_flag(std::env::args_os()) {
        Some(cli::ColorWhen::Always) => clap::ColorChoice::Always,
        Some(cli::ColorWhen::Never) => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    };
    let matches = Cli::command().color(choice).get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Runs a command line to its exit code (what the daemon runs for a client).
fn execute(cli: Cli) -> ExitCode {
    console::set_paint(console::colours(cli.color));
    let repo = cli.repo.clone();
    exit_code(run(cli), &repo)
}

/// A command's result as its exit code, the error said on stderr.
fn exit_code(result: Result<ExitCode>, repo: &Option<std::path::PathBuf>) -> ExitCode {
    let e = match result {
        Ok(code) => return code,
        Err(e) => e,
    };
    match e.downcast_ref::<Error>() {
        Some(Error::Interrupted) => {
            errln!("evident: {e}");
            return ExitCode::from(130);
        }
        // Nothing found is exit 1, as for a query with no results.
        Some(Error::NotFound(_)) => {
            errln!("evident: {e}");
            return ExitCode::from(1);
        }
        // The next `evident index` then checks the file and heals it.
        Some(damage) if damage.is_damage() => {
            if let Ok(root) = query_root(repo) {
                evident_index::store::mark_damaged(&root);
            }
        }
        _ => {}
    }
    errln!("evident: error: {}", render::error_text(&e));
    ExitCode::from(2)
}

/// Runs one command; each arm hands its arguments to the command's function.
fn run(cli: Cli) -> Result<ExitCode> {
    let (repo, json) = (&cli.repo, cli.json);
    match cli.command {
        Command::Index(args) => indexing::index(cli.repo, json, args),
        Command::Embed(args) => indexing::embed(cli.repo, json, args),
        Command::Symbol(args) => query::symbol(repo, json, args),
        Command::Read(args) => query::read(repo, json, args),
        Command::Importers { module } => query::importers(repo, json, &module),
        Command::Outline { path } => query::outline(repo, json, &path),
        Command::Status => query::status(repo, json),
        Command::Def { position, stdin } => match position {
            Some(position) if !stdin => query::def(repo, json, &position),
            _ => query::def_lines(repo),
        },
        Command::Callers(args) => query::callers(repo, json, args),
        Command::Callees { symbol, path } => query::callees(repo, json, &symbol, path.as_deref()),
        Command::Impact(args) => query::impact(repo, json, args),
        Command::Diff(args) => query::diff(repo, json, args),
        Command::Graph(args) => query::graph(repo, json, args),
        Command::Sources { name_contains } => query::sources(repo, json, &name_contains),
        Command::Source(args) => query::source(repo, json, args),
        Command::Search(args) => search::search(repo, json, args),
        Command::Ask { question, agent } => {
            agent::run(&query_root(repo)?, &agent, Some(&question), json)
        }
        Command::Chat { agent } => agent::run(&query_root(repo)?, &agent, None, json),
        Command::Mcp(args) => mcp::serve(&query_root(repo)?, args),
        Command::Serve(args) => serve::serve(&query_root(repo)?, args),
        Command::Probe { model } => probe::probe(&model, &query_root(repo)?, json),
        Command::Daemon(args) => daemon::command(repo, json, args, execute),
        Command::Setup(args) => setup::setup(repo, json, args),
        Command::Completions { shell } => shell::completions(shell),
        Command::Man { out_dir } => shell::man_pages(&out_dir),
    }
}
