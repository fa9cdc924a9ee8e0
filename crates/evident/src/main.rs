//! `evident`: the command-line edge. Parses arguments, calls the library
//! crates, renders Evidence as text or JSON, and maps errors to exit codes
//! (0: results, 1: no results, 2: error, 130: interrupted; `ask` adds 3:
//! round limit, 4: denied). It holds no indexing, query or agent logic of its
//! own.

mod agent;
mod model;
mod render;
mod rerank;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use evident_index::{Error, Evidence, Index, IndexOptions, Kind, SymbolQuery};

#[derive(Parser)]
#[command(
    name = "evident",
    version,
    about = "Local-first, read-only code intelligence: answers about your code, with evidence."
)]
struct Cli {
    /// Repository root (default: the nearest ancestor with an index, else the git work tree, else the current directory).
    #[arg(long, global = true, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// Print Evidence records as JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Index (or incrementally re-index) a repository into PATH/.evident/index.db.
    Index {
        /// Repository to index (default: the current directory).
        path: Option<PathBuf>,
        /// Drop the existing index and build it from scratch.
        #[arg(long)]
        rebuild: bool,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// Skip files larger than this many bytes (default 1048576, or index.max_file_size in evident.toml).
        #[arg(long, value_name = "BYTES")]
        max_file_size: Option<u64>,
        /// Files per transaction.
        #[arg(long, value_name = "N", hide = true)]
        batch_size: Option<usize>,
    },
    /// Find definitions by name: exact matches first, then case-insensitive and qualified-name suffix matches.
    Symbol {
        name: String,
        /// Only this kind (function, method, class, struct, enum, trait, interface, module, constant, variable, type).
        #[arg(long, value_parser = parse_kind)]
        kind: Option<Kind>,
        /// Only under this file or directory.
        #[arg(long)]
        path: Option<String>,
        /// Only exact name or qualified-name matches.
        #[arg(long)]
        exact: bool,
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Print lines START..=END of a file (at most 400 lines).
    Read {
        path: String,
        #[arg(allow_hyphen_values = true)]
        start: String,
        #[arg(allow_hyphen_values = true)]
        end: String,
    },
    /// Every import site of a module, by module path (pkg.mod, crate::store) or file path.
    Importers { module: String },
    /// The definitions of one file, as a tree.
    Outline { path: String },
    /// What is indexed, when, and what changed since.
    Status,
    /// The definition(s) the identifier at PATH:LINE[:COL] refers to.
    Def {
        /// PATH:LINE or PATH:LINE:COL (1-based).
        position: String,
    },
    /// Call sites that reach SYMBOL, up to --depth levels of callers.
    Callers {
        symbol: String,
        /// Only the definition under this file or directory.
        #[arg(long)]
        path: Option<String>,
        #[arg(long, default_value_t = 1)]
        depth: u32,
    },
    /// The calls made inside SYMBOL and what each resolves to.
    Callees {
        symbol: String,
        #[arg(long)]
        path: Option<String>,
    },
    /// What may break if SYMBOL changes: its callers, transitively (reverse BFS).
    Impact {
        symbol: String,
        #[arg(long)]
        path: Option<String>,
        #[arg(long, default_value_t = evident_index::DEFAULT_IMPACT_DEPTH)]
        max_depth: u32,
        /// Most affected definitions to list.
        #[arg(long, default_value_t = 200)]
        limit: usize,
        #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
        format: GraphFormat,
    },
    /// What a change touched (against git) and what it may break.
    Diff {
        /// Compare BASE..HEAD instead of the working tree with HEAD.
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Compare the staged changes (the index) with HEAD.
        #[arg(long)]
        staged: bool,
        /// Impact depth for each touched definition.
        #[arg(long, default_value_t = evident_index::DEFAULT_IMPACT_DEPTH)]
        max_depth: u32,
        /// Only these files or directories.
        paths: Vec<String>,
    },
    /// Rank code chunks (definitions, and code between them) for a query: BM25 over names, signatures, doc comments, bodies and paths.
    Search {
        query: String,
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Only chunks of this kind (function, class, method, ..., chunk for code outside definitions).
        #[arg(long, value_parser = parse_kind)]
        kind: Option<Kind>,
        /// Only paths matching this glob (`src/**/*.py`), or under this file or directory.
        #[arg(long)]
        path: Option<String>,
        /// Ranking: bm25, vector or hybrid (vector and hybrid need an embedding model and `evident embed`; hybrid falls back to bm25).
        #[arg(long, value_enum, default_value_t = SearchMode::Hybrid)]
        mode: SearchMode,
        /// Show why each result ranks where it does.
        #[arg(long)]
        explain: bool,
        /// Let the chat model (--model, [model]) score the top candidates for relevance and reorder them.
        #[arg(long)]
        rerank: bool,
        /// How many fused results the model scores.
        #[arg(long, value_name = "N", default_value_t = 20, requires = "rerank")]
        rerank_top: usize,
        /// Seconds the model may take; after that the fused order stands.
        #[arg(long, value_name = "SECS", default_value_t = 30.0, requires = "rerank")]
        rerank_budget: f64,
        #[command(flatten)]
        embed: model::EmbedArgs,
        #[command(flatten)]
        model: model::ModelArgs,
    },
    /// Embed the index's chunks with an embedding model (only those without a vector for it), for vector and hybrid search.
    Embed {
        #[command(flatten)]
        embed: model::EmbedArgs,
        /// Chunks per request to the embedding server.
        #[arg(long, value_name = "N")]
        batch_size: Option<usize>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the documents (Markdown, reStructuredText, AsciiDoc, text) by ID and path; never their content.
    Sources {
        /// Only documents whose path or title contains this (case-insensitive; at most 80 characters).
        #[arg(long, default_value = "")]
        name_contains: String,
    },
    /// Read a document by its ID: from the top, one section, or a line range (at most 400 lines).
    Source {
        doc_id: String,
        /// The section under this heading (case-insensitive).
        #[arg(long, conflicts_with = "lines")]
        section: Option<String>,
        /// Lines A-B.
        #[arg(long, value_name = "A-B")]
        lines: Option<String>,
    },
    /// Ask a question about the repository: a local model uses the read-only tools and answers with checked citations.
    Ask {
        question: String,
        #[command(flatten)]
        agent: agent::AgentArgs,
    },
    /// A conversation about the repository (questions from stdin; /reset, /tools, /skills, /exit).
    Chat {
        #[command(flatten)]
        agent: agent::AgentArgs,
    },
    /// Serve the read-only tools to other agents (Claude Code, Cursor, Codex, Zed) over MCP on stdin/stdout.
    Mcp {
        /// Cut each result at this many bytes (its text and its structured content, each).
        #[arg(long, default_value_t = evident_mcp::DEFAULT_MAX_OUTPUT_BYTES as u64, value_parser = clap::value_parser!(u64).range(1000..=100_000_000))]
        max_output_bytes: u64,
        /// Wait at most this long (milliseconds) for an index refresh before answering from the index as it was (marked stale).
        #[arg(long, default_value_t = 2000, value_name = "MS")]
        refresh_wait: u64,
        /// Append log lines to this file instead of stderr.
        #[arg(long, value_name = "FILE")]
        log_file: Option<PathBuf>,
        #[command(flatten)]
        embed: model::EmbedArgs,
    },
    /// Ask the model one tool question under each protocol and report which work (a connection and model check).
    Probe {
        #[command(flatten)]
        model: model::ModelArgs,
    },
    /// Export the resolved call graph.
    Graph {
        /// Only calls made from files under this path.
        #[arg(long)]
        path: Option<String>,
        #[arg(long, value_enum, default_value_t = GraphFormat::Json)]
        format: GraphFormat,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SearchMode {
    Bm25,
    Vector,
    Hybrid,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum GraphFormat {
    Text,
    Json,
    Dot,
    Mermaid,
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s).ok_or_else(|| {
        let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind {s:?}; one of: {}", kinds.join(", "))
    })
}

fn parse_line(what: &str, s: &str) -> Result<i64> {
    s.trim()
        .parse::<i64>()
        .map_err(|_| anyhow::anyhow!("invalid argument: {what} line {s:?} is not a number"))
}

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

/// `PATH:LINE[:COL]`, where PATH may itself contain colons.
fn parse_position(position: &str) -> Result<(String, u32, Option<u32>)> {
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
fn stop_after_batch_on_ctrl_c() -> Arc<AtomicBool> {
    let cancel = Arc::new(AtomicBool::new(false));
    let handler_flag = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        if handler_flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\nstopping after the current batch (Ctrl-C again to stop now)…");
    });
    cancel
}

/// A progress bar on stderr when it is a terminal and output is not suppressed.
fn progress_bar(suppressed: bool) -> Option<Arc<dyn evident_index::Progress>> {
    (!suppressed && std::io::stderr().is_terminal())
        .then(|| Arc::new(render::Bar::new()) as Arc<dyn evident_index::Progress>)
}

/// The query's embedding for vector or hybrid search. `None` (with a note on
/// stderr) when hybrid must fall back to BM25; an error when vector cannot run.
fn query_vector(
    index: &Index,
    root: &Path,
    args: &model::EmbedArgs,
    query: &str,
    required: bool,
) -> Result<Option<evident_index::QueryVector>> {
    let fallback = |why: String| -> Result<Option<evident_index::QueryVector>> {
        if required {
            anyhow::bail!("vector search: {why}");
        }
        eprintln!("note: {why}, so hybrid search ranks by BM25 only");
        Ok(None)
    };
    let Some(embedder) = profiled("load embedder", || model::embedder(args, root))? else {
        return fallback(
            "no embedding model is configured (--embed-provider local, --embed-model, [embed], EVIDENT_EMBED_MODEL)"
                .into(),
        );
    };
    let model = evident_index::Embedder::model(&embedder).to_string();
    if index.vector_count(&model)? == 0 {
        return fallback(format!(
            "no chunk has a vector for {model}: run `evident embed`"
        ));
    }
    match profiled("embed query", || {
        evident_index::Embedder::embed(&embedder, &[query.to_string()])
    }) {
        Ok(mut vectors) if vectors.len() == 1 => Ok(Some(evident_index::QueryVector {
            model,
            values: vectors.remove(0),
        })),
        Ok(_) => fallback(format!("{model} gave no vector for the query")),
        Err(e) => fallback(format!("embedding the query failed ({e})")),
    }
}

/// Runs `step`, printing its time on stderr when `EVIDENT_PROFILE` is set.
fn profiled<T>(name: &str, step: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let result = step();
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        eprintln!(
            "profile: {name}: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    result
}

/// Runs a query, printing its own time on stderr when `EVIDENT_PROFILE` is set
/// (the benchmarks read it: the command's total also includes the stale check).
fn timed<T>(
    name: &str,
    query: impl FnOnce() -> evident_index::Result<T>,
) -> evident_index::Result<T> {
    let started = std::time::Instant::now();
    let result = query();
    if std::env::var_os("EVIDENT_PROFILE").is_some() {
        eprintln!(
            "profile: query {name}: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    result
}

fn main() -> ExitCode {
    use_mimalloc_for_tree_sitter();
    let cli = Cli::parse();
    let started = std::time::Instant::now();
    let profile = std::env::var_os("EVIDENT_PROFILE").is_some();
    let result = run(cli);
    if profile {
        eprintln!(
            "profile: command: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            match e.downcast_ref::<Error>() {
                Some(Error::Interrupted) => {
                    eprintln!("evident: {e}");
                    return ExitCode::from(130);
                }
                // Nothing found is exit 1, as for a query with no results.
                Some(Error::NotFound(_)) => {
                    eprintln!("evident: {e}");
                    return ExitCode::from(1);
                }
                _ => {}
            }
            eprintln!("evident: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn query_root(cli_repo: &Option<PathBuf>) -> Result<PathBuf> {
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

/// Opens the index for a query and warns on stderr when it is stale.
fn open_index(root: &Path) -> Result<Index> {
    let index = Index::open(root)?;
    if !index.last_run_complete()? {
        eprintln!("warning: the last `evident index` run did not finish; run `evident index` to complete it");
    }
    let stale = index.staleness()?;
    if stale.is_stale() {
        let example = stale
            .modified
            .iter()
            .chain(&stale.added)
            .chain(&stale.deleted)
            .next()
            .cloned()
            .unwrap_or_default();
        eprintln!(
            "warning: the index is stale: {} file(s) changed since it was built (e.g. {example}); run `evident index`",
            stale.changed()
        );
    }
    Ok(index)
}

fn emit(json: bool, results: &[Evidence], empty_message: &str) -> Result<ExitCode> {
    if results.is_empty() {
        if json {
            println!("[]");
        }
        eprintln!("{empty_message}");
        return Ok(ExitCode::from(1));
    }
    if json {
        println!("{}", serde_json::to_string_pretty(results)?);
    } else {
        print!("{}", render::evidence_list(results));
    }
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Ask { question, agent } => {
            let root = query_root(&cli.repo)?;
            agent::run(&root, &agent, Some(&question), cli.json)
        }
        Command::Chat { agent } => {
            let root = query_root(&cli.repo)?;
            agent::run(&root, &agent, None, cli.json)
        }
        Command::Mcp {
            max_output_bytes,
            refresh_wait,
            log_file,
            embed,
        } => {
            let root = query_root(&cli.repo)?;
            agent::serve_mcp(
                &root,
                &embed,
                max_output_bytes as usize,
                refresh_wait,
                log_file,
            )
        }
        Command::Probe { model } => {
            let root = query_root(&cli.repo)?;
            let cancel = evident_llm::CancelToken::new();
            let handler = cancel.clone();
            let _ = ctrlc::set_handler(move || handler.cancel());
            model::probe(&model, &root, cli.json, &cancel)
        }
        Command::Index {
            path,
            rebuild,
            quiet,
            max_file_size,
            batch_size,
        } => {
            let root = match path.or(cli.repo) {
                Some(p) => p,
                None => std::env::current_dir().context("current directory")?,
            };
            let cancel = stop_after_batch_on_ctrl_c();
            let progress = progress_bar(quiet || cli.json);
            let options = IndexOptions {
                rebuild,
                max_file_size,
                batch_size,
                cancel: Some(cancel),
                progress,
            };
            let summary = evident_index::index_repo(&root, &options)?;
            if cli.json {
                println!("{}", render::summary_json(&summary));
            } else if !quiet {
                print!("{}", render::summary(&summary));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Symbol {
            name,
            kind,
            path,
            exact,
            limit,
        } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let query = SymbolQuery {
                kind,
                path,
                exact,
                limit: Some(limit),
            };
            let results = index.symbols(&name, &query)?;
            emit(
                cli.json,
                &results,
                &format!("no definitions match {name:?}"),
            )
        }
        Command::Search {
            query,
            limit,
            kind,
            path,
            mode,
            explain,
            rerank,
            rerank_top,
            rerank_budget,
            embed,
            model,
        } => {
            let root = query_root(&cli.repo)?;
            let index = open_index(&root)?;
            // A rerank without a model configured is an error before any work, not a silent fallback.
            let reranker = rerank.then(|| model::choose(&model, &root)).transpose()?;
            let mut request = evident_index::SearchQuery {
                limit: if rerank { limit.max(rerank_top) } else { limit },
                kind,
                path,
                ..evident_index::SearchQuery::new(query.clone())
            };
            request.mode = match mode {
                SearchMode::Bm25 => evident_index::SearchMode::Bm25,
                SearchMode::Vector | SearchMode::Hybrid => {
                    match query_vector(&index, &root, &embed, &query, mode == SearchMode::Vector)? {
                        Some(vector) => {
                            request.vector = Some(vector);
                            if mode == SearchMode::Vector {
                                evident_index::SearchMode::Vector
                            } else {
                                evident_index::SearchMode::Hybrid
                            }
                        }
                        None => evident_index::SearchMode::Bm25,
                    }
                }
            };
            let mut results = timed("search", || index.search(&request))?;
            if let Some(choice) = &reranker {
                let options = rerank::RerankOptions {
                    top: rerank_top,
                    budget: std::time::Duration::from_secs_f64(rerank_budget.max(0.0)),
                };
                if let rerank::RerankOutcome::FellBack(why) =
                    rerank::rerank(&root, &query, &mut results, choice, &options)
                {
                    eprintln!("note: rerank skipped: {why}; results are in fused order");
                }
                results.truncate(limit);
            }
            if !explain {
                for ev in &mut results {
                    ev.reason = None;
                }
            }
            emit(cli.json, &results, &format!("nothing matches {query:?}"))
        }
        Command::Embed {
            embed,
            batch_size,
            quiet,
        } => {
            let root = match cli.repo {
                Some(p) => p,
                None => std::env::current_dir().context("current directory")?,
            };
            let Some(embedder) = model::embedder(&embed, &root)? else {
                anyhow::bail!(
                    "no embedding model chosen: pass --embed-provider local (the built-in model; scripts/fetch-embed-model.sh fetches it) or --embed-model NAME for a server, set [embed] in evident.toml, or set EVIDENT_EMBED_MODEL"
                );
            };
            let cancel = stop_after_batch_on_ctrl_c();
            let progress = progress_bar(quiet || cli.json);
            let options = evident_index::EmbedOptions {
                batch_size,
                cancel: Some(cancel),
                progress,
            };
            let summary = evident_index::embed_chunks(&root, &embedder, &options)?;
            if cli.json {
                println!(
                    "{}",
                    serde_json::json!({
                        "model": evident_index::Embedder::model(&embedder),
                        "embedded": summary.embedded, "reused": summary.reused,
                        "skipped": summary.skipped, "with_vectors": summary.with_vectors,
                    })
                );
            } else if !quiet {
                println!(
                    "embedded {} chunks with {} at {} ({} reused, {} unreadable); {} chunks have vectors",
                    summary.embedded,
                    evident_index::Embedder::model(&embedder),
                    embedder.location(),
                    summary.reused,
                    summary.skipped,
                    summary.with_vectors
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Sources { name_contains } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let results = index.sources(&name_contains)?;
            if !cli.json {
                for doc in &results {
                    println!(
                        "{}  {}  {}  ({} lines)",
                        doc.doc_id.as_deref().unwrap_or(""),
                        doc.path,
                        doc.name,
                        doc.end_line
                    );
                }
                if results.is_empty() {
                    eprintln!("no documents match {name_contains:?}");
                    return Ok(ExitCode::from(1));
                }
                return Ok(ExitCode::SUCCESS);
            }
            emit(
                true,
                &results,
                &format!("no documents match {name_contains:?}"),
            )
        }
        Command::Source {
            doc_id,
            section,
            lines,
        } => {
            let part = match (section, lines) {
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
            let index = open_index(&query_root(&cli.repo)?)?;
            let evidence = index.source(&doc_id, &part)?;
            emit(cli.json, &[evidence], "")
        }
        Command::Read { path, start, end } => {
            let (start, end) = (parse_line("start", &start)?, parse_line("end", &end)?);
            let index = open_index(&query_root(&cli.repo)?)?;
            let evidence = index.read(&path, start, end)?;
            emit(cli.json, &[evidence], "")
        }
        Command::Importers { module } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let results = index.importers(&module)?;
            emit(cli.json, &results, &format!("nothing imports {module:?}"))
        }
        Command::Outline { path } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let results = index.outline(&path)?;
            if cli.json || results.is_empty() {
                return emit(cli.json, &results, &format!("{path} has no definitions"));
            }
            print!("{}", render::outline(&results));
            Ok(ExitCode::SUCCESS)
        }
        Command::Def { position } => {
            let (path, line, col) = parse_position(&position)?;
            let index = open_index(&query_root(&cli.repo)?)?;
            let results = index.definition_at(&path, line, col)?;
            emit(
                cli.json,
                &results,
                &format!("no definition found for {position}"),
            )
        }
        Command::Callers {
            symbol,
            path,
            depth,
        } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let results = timed("callers", || index.callers(&symbol, path.as_deref(), depth))?;
            emit(
                cli.json,
                &results,
                &format!("no resolved calls reach {symbol:?}"),
            )
        }
        Command::Callees { symbol, path } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let results = index.callees(&symbol, path.as_deref())?;
            emit(cli.json, &results, &format!("{symbol:?} makes no calls"))
        }
        Command::Impact {
            symbol,
            path,
            max_depth,
            limit,
            format,
        } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let impact = timed("impact", || {
                index.impact(&symbol, path.as_deref(), max_depth, limit)
            })?;
            let format = if cli.json { GraphFormat::Json } else { format };
            print!(
                "{}",
                match format {
                    GraphFormat::Text => render::impact_text(&impact),
                    GraphFormat::Json => render::impact_json(&impact),
                    GraphFormat::Dot => render::dot(&impact.edges),
                    GraphFormat::Mermaid => render::mermaid(&impact.edges),
                }
            );
            Ok(if impact.nodes.is_empty() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Diff {
            base,
            staged,
            max_depth,
            paths,
        } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let report = index.diff(&evident_index::DiffRequest {
                base,
                staged,
                paths,
                impact_depth: max_depth,
            })?;
            if cli.json {
                println!("{}", render::diff_json(&report));
            } else {
                print!("{}", render::diff_text(&report));
            }
            Ok(if report.files == 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Graph { path, format } => {
            let index = open_index(&query_root(&cli.repo)?)?;
            let graph = index.call_graph(path.as_deref())?;
            let edges: Vec<(String, String)> = graph
                .edges
                .iter()
                .map(|e| (e.caller.clone(), e.callee.clone()))
                .collect();
            match if cli.json { GraphFormat::Json } else { format } {
                GraphFormat::Json | GraphFormat::Text => {
                    println!("{}", serde_json::to_string_pretty(&graph)?)
                }
                GraphFormat::Dot => print!("{}", render::dot(&edges)),
                GraphFormat::Mermaid => print!("{}", render::mermaid(&edges)),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Status => {
            let index = Index::open(&query_root(&cli.repo)?)?;
            let status = index.status()?;
            if cli.json {
                println!("{}", render::status_json(&status));
            } else {
                print!("{}", render::status(&status));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    /// clap checks a command's definition (unique names, valid `requires`)
    /// only when it runs; check every subcommand at once.
    #[test]
    fn the_command_line_definition_is_consistent() {
        <super::Cli as clap::CommandFactory>::command().debug_assert();
    }
}
