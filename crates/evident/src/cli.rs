//! The command line: every subcommand, its flags and their help (clap). What
//! each command does lives in `commands/`; this file only says what may be asked.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use evident_index::Kind;

use crate::agent::AgentArgs;
use crate::model::{EmbedArgs, ModelArgs};

#[derive(Parser)]
#[command(
    name = "evident",
    version = env!("EVIDENT_LONG_VERSION"),
    // The daemon's client states the colour it resolved ahead of the user's
    // own flags: the last one given wins.
    args_override_self = true,
    about = "Local-first, read-only code intelligence: answers about your code, with evidence."
)]
pub struct Cli {
    /// Repository root (default: the nearest ancestor with an index, else the git work tree, else the current directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Print Evidence records as JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Answer in this process even when a daemon runs for the repository
    /// (also: EVIDENT_NO_DAEMON=1).
    #[arg(long, global = true)]
    pub no_daemon: bool,
    /// Colour the text output: auto (when it goes to a terminal and NO_COLOR
    /// is not set), always, never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Index (or incrementally re-index) a repository into PATH/.evident/index.db.
    Index(IndexArgs),
    /// Find definitions by name: exact matches first, then case-insensitive and qualified-name suffix matches.
    Symbol(SymbolArgs),
    /// Print lines START..=END of a file (at most 400 lines).
    Read(ReadArgs),
    /// Every import site of a module, by module path (pkg.mod, crate::store) or file path.
    Importers { module: String },
    /// The definitions of one file, as a tree.
    Outline { path: String },
    /// What is indexed, when, and what changed since.
    Status,
    /// The definition(s) the identifier at PATH:LINE[:COL] refers to.
    Def {
        /// PATH:LINE or PATH:LINE:COL (1-based).
        #[arg(required_unless_present = "stdin", conflicts_with = "stdin")]
        position: Option<String>,
        /// Read positions from standard input, one per line, over one open
        /// index; print one JSON line per position: `{"position", "results"}`
        /// or `{"position", "error"}`.
        #[arg(long)]
        stdin: bool,
    },
    /// Call sites that reach SYMBOL, up to --depth levels of callers.
    Callers(CallersArgs),
    /// The calls made inside SYMBOL and what each resolves to.
    Callees {
        symbol: String,
        #[arg(long)]
        path: Option<String>,
    },
    /// What may break if SYMBOL changes: its callers, transitively (reverse BFS).
    Impact(ImpactArgs),
    /// What a change touched (against git) and what it may break.
    Diff(DiffArgs),
    /// Rank code chunks (definitions, and code between them) for a query: BM25 over names, signatures, doc comments, bodies and paths.
    Search(SearchArgs),
    /// Embed the index's chunks with an embedding model (only those without a vector for it), for vector and hybrid search.
    Embed(EmbedCommandArgs),
    /// List the documents (Markdown, reStructuredText, AsciiDoc, text) by ID and path; never their content.
    Sources {
        /// Only documents whose path or title contains this (case-insensitive; at most 80 characters).
        #[arg(long, default_value = "")]
        name_contains: String,
    },
    /// Read a document by its ID: from the top, one section, or a line range (at most 400 lines).
    Source(SourceArgs),
    /// Ask a question about the repository: a local model uses the read-only tools and answers with checked citations.
    Ask {
        question: String,
        #[command(flatten)]
        agent: AgentArgs,
    },
    /// A conversation about the repository (questions from stdin; /reset, /tools, /skills, /exit).
    Chat {
        #[command(flatten)]
        agent: AgentArgs,
    },
    /// Serve the read-only tools to other agents (Claude Code, Cursor, Codex, Zed) over MCP on stdin/stdout.
    Mcp(McpArgs),
    /// A resident process per repository that keeps its index open and
    /// current as files change, and answers the query commands for them.
    #[command(subcommand)]
    Daemon(DaemonAction),
    /// Serve the index to a browser on this machine (127.0.0.1 only, read-only), until Ctrl-C.
    Serve(ServeArgs),
    /// Ask the model one tool question under each protocol and report which work (a connection and model check).
    Probe {
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Add this repository's MCP server to an agent client's configuration
    /// (claude-code, cursor, vscode, zed, codex, continue, windsurf, gemini,
    /// opencode); without CLIENT, list them and whether each is set up.
    Setup(SetupArgs),
    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Write man pages (evident.1 and one per command) into DIR.
    #[command(hide = true)]
    Man {
        #[arg(long, value_name = "DIR")]
        out_dir: PathBuf,
    },
    /// Export the resolved call graph, or (with --level) a map of the
    /// repository: packages or files, their imports and calls, cycles and
    /// the most-called definitions.
    Graph(GraphArgs),
}

#[derive(clap::Args)]
pub struct GraphArgs {
    /// Only calls made from files under this path; for a map, only the
    /// packages, files or definitions under it.
    #[arg(long)]
    pub path: Option<String>,
    /// `text` summarises a map (largest nodes, heaviest dependencies,
    /// cycles, most called); `svg` draws it.
    #[arg(long, value_enum, default_value_t = GraphFormat::Json)]
    pub format: GraphFormat,
    /// A map instead of the call edges: packages (directories), files, or
    /// the definitions of the files under --path.
    #[arg(long, value_enum)]
    pub level: Option<MapLevelArg>,
    /// Packages cut to their first N directory parts (`django/db`).
    #[arg(long, value_name = "N", requires = "level", value_parser = parse_limit)]
    pub depth: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MapLevelArg {
    Package,
    File,
    Definition,
}

#[derive(clap::Args)]
pub struct IndexArgs {
    /// Repository to index (default: the current directory).
    pub path: Option<PathBuf>,
    /// Build the index from scratch. Queries keep answering from the old
    /// index until the new one is complete.
    #[arg(long)]
    pub rebuild: bool,
    /// Read every page of the index for damage first, and build it again if
    /// any is found (a run does this once a day on its own).
    #[arg(long)]
    pub check: bool,
    /// Merge this compiler's index (SCIP, from scip-typescript, scip-python,
    /// rust-analyzer, ...) into the graph; later runs keep using it. Without
    /// it, `index.scip` at the root is used when there is one.
    #[arg(long, value_name = "FILE")]
    pub scip: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Skip files larger than this many bytes (default 1048576, or index.max_file_size in evident.toml).
    #[arg(long, value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    /// Files per transaction.
    #[arg(long, value_name = "N", hide = true)]
    pub batch_size: Option<usize>,
    /// Do not embed new and changed chunks after indexing (search then uses
    /// the vectors already there, or BM25 alone).
    #[arg(long)]
    pub no_embed: bool,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

#[derive(clap::Args)]
pub struct SymbolArgs {
    pub name: String,
    /// Only this kind (function, method, class, struct, union, enum, trait, interface, protocol, object, module, namespace, constant, variable, property, macro, type).
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<Kind>,
    /// Only under this file or directory.
    #[arg(long)]
    pub path: Option<String>,
    /// Only exact name or qualified-name matches.
    #[arg(long)]
    pub exact: bool,
    #[arg(long, default_value_t = 50, value_parser = parse_limit)]
    pub limit: usize,
}

#[derive(clap::Args)]
pub struct ReadArgs {
    pub path: String,
    #[arg(allow_hyphen_values = true)]
    pub start: String,
    #[arg(allow_hyphen_values = true)]
    pub end: String,
}

#[derive(clap::Args)]
pub struct CallersArgs {
    pub symbol: String,
    /// Only the definition under this file or directory.
    #[arg(long)]
    pub path: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Resolved call sites per page (only the page's are read from disk).
    #[arg(long, default_value_t = 100, value_parser = parse_limit)]
    pub limit: usize,
    /// Resolved call sites to pass over before the page (for the next pages).
    #[arg(long, default_value_t = 0)]
    pub offset: u64,
    /// `dot`, `mermaid` and `svg` draw the page's callers and the possible ones.
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    pub format: GraphFormat,
}

#[derive(clap::Args)]
pub struct ImpactArgs {
    pub symbol: String,
    #[arg(long)]
    pub path: Option<String>,
    #[arg(long, default_value_t = evident_index::DEFAULT_IMPACT_DEPTH)]
    pub max_depth: u32,
    /// Most affected definitions to list.
    #[arg(long, default_value_t = 200, value_parser = parse_limit)]
    pub limit: usize,
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    pub format: GraphFormat,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// Compare BASE..HEAD instead of the working tree with HEAD.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Compare the staged changes (the index) with HEAD.
    #[arg(long)]
    pub staged: bool,
    /// Impact depth for each touched definition.
    #[arg(long, default_value_t = evident_index::DEFAULT_IMPACT_DEPTH)]
    pub max_depth: u32,
    /// Only these files or directories.
    pub paths: Vec<String>,
    /// `svg`: the touched definitions and what may break, as a picture.
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    pub format: GraphFormat,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    pub query: String,
    #[arg(long, default_value_t = 10, value_parser = parse_limit)]
    pub limit: usize,
    /// Only chunks of this kind (function, class, method, ..., chunk for code outside definitions).
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<Kind>,
    /// Only paths matching this glob (`src/**/*.py`), or under this file or directory.
    #[arg(long)]
    pub path: Option<String>,
    /// Only files of this language or document format (the names `evident status` lists: python, rust, markdown, ...).
    #[arg(long)]
    pub language: Option<String>,
    /// Ranking: bm25, vector or hybrid (vector and hybrid need an embedder and the vectors `evident index` makes; hybrid falls back to bm25).
    #[arg(long, value_enum, default_value_t = SearchMode::Hybrid)]
    pub mode: SearchMode,
    /// Show why each result ranks where it does.
    #[arg(long)]
    pub explain: bool,
    /// What one result stands for: a chunk (a definition's body, code between
    /// definitions), a file, or a definition (its windows together). A group
    /// shows its best chunk and scores the sum of its chunks' scores.
    #[arg(long, value_enum, default_value_t = SearchGroup::File)]
    pub group: SearchGroup,
    /// Change how much a ranking signal counts, 0 for off (for measuring
    /// each one): calls, class, imports (what a result borrows from the
    /// results it is linked to), tests, docs (the share taken off tests and
    /// documents), vector (the vector list's share in hybrid), name,
    /// signature, body, path (BM25F column weights), length (a group's sum
    /// divided by its chunk count to this power), size (a larger
    /// definition's lift), history (the lift of files that past commits
    /// with messages like the query changed), recency (the lift, within
    /// the first page, of files recent commits changed; see docs/search.md
    /// for the rest). Repeatable.
    #[arg(long, value_name = "NAME=WEIGHT")]
    pub signal: Vec<String>,
    /// Let the chat model (--model, [model]) score the top candidates for relevance and reorder them.
    #[arg(long)]
    pub rerank: bool,
    /// How many fused results the model scores.
    #[arg(long, value_name = "N", default_value_t = 20, requires = "rerank")]
    pub rerank_top: usize,
    /// Seconds the model may take; after that the fused order stands.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, requires = "rerank")]
    pub rerank_budget: f64,
    #[command(flatten)]
    pub embed: EmbedArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(clap::Args)]
pub struct EmbedCommandArgs {
    #[command(flatten)]
    pub embed: EmbedArgs,
    /// Chunks per request to the embedding server (default 32; 1024 for the built-in static table).
    #[arg(long, value_name = "N")]
    pub batch_size: Option<usize>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(clap::Args)]
pub struct SetupArgs {
    /// The client to configure; omit it (or pass --list) to list them.
    pub client: Option<String>,
    /// List the clients, their configuration files and whether this
    /// repository's server is in each.
    #[arg(long, conflicts_with = "client")]
    pub list: bool,
    /// Print the change as a unified diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The server's name in the client (default: `evident`, or
    /// `evident-DIRNAME` in a file every repository shares).
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(clap::Args)]
pub struct SourceArgs {
    pub doc_id: String,
    /// The section under this heading (case-insensitive).
    #[arg(long, conflicts_with = "lines")]
    pub section: Option<String>,
    /// Lines A-B.
    #[arg(long, value_name = "A-B")]
    pub lines: Option<String>,
}

#[derive(clap::Args)]
pub struct McpArgs {
    /// Cut each result at this many bytes (its text and its structured content, each).
    #[arg(long, default_value_t = evident_mcp::DEFAULT_MAX_OUTPUT_BYTES as u64, value_parser = clap::value_parser!(u64).range(1000..=100_000_000))]
    pub max_output_bytes: u64,
    /// Wait at most this long (milliseconds) for an index refresh before answering from the index as it was (marked stale).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub refresh_wait: u64,
    /// Append log lines to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Do not embed new and changed chunks after each index refresh (search
    /// uses the vectors already there, or BM25 alone).
    #[arg(long)]
    pub no_embed: bool,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

#[derive(clap::Args)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0: any free one).
    #[arg(long, default_value_t = 7617)]
    pub port: u16,
    /// Open the URL in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Wait at most this long (milliseconds) for an index refresh before answering from the index as it was (marked stale).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub refresh_wait: u64,
    /// The chat model for the ask page (as for `evident ask`).
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub embed: EmbedArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchMode {
    Bm25,
    Vector,
    Hybrid,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchGroup {
    Chunk,
    File,
    Definition,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    Text,
    Json,
    Dot,
    Mermaid,
    /// A laid-out picture (at most 200 nodes, the nearest first).
    Svg,
}

/// Every `--limit`: a whole number, at least 1 (0 would ask for nothing).
fn parse_limit(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{s:?} is not a whole number")),
    }
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s).ok_or_else(|| {
        let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind {s:?}; one of: {}", kinds.join(", "))
    })
}

impl Command {
    /// The commands that only read the index and the repository and print:
    /// no model or server, and no input but `def --stdin`'s.
    pub fn only_reads_the_index(&self) -> bool {
        matches!(
            self,
            Command::Symbol(_)
                | Command::Read(_)
                | Command::Importers { .. }
                | Command::Outline { .. }
                | Command::Status
                | Command::Def { .. }
                | Command::Callers(_)
                | Command::Callees { .. }
                | Command::Impact(_)
                | Command::Diff(_)
                | Command::Graph { .. }
                | Command::Sources { .. }
                | Command::Source(_)
        )
    }
}

#[derive(Subcommand)]
pub enum DaemonAction {
    /// Start this repository's daemon in the background, unless one runs.
    Start(DaemonRunArgs),
    /// Run the daemon in the foreground, until it is idle or stopped.
    Run(DaemonRunArgs),
    /// Stop this repository's daemon.
    Stop,
    /// Whether a daemon runs for this repository, and what it has done.
    Status,
}

/// How long a daemon waits for a request before it stops, unless told.
pub const DAEMON_IDLE_S: u64 = 1800;

#[derive(clap::Args, Clone)]
pub struct DaemonRunArgs {
    /// Stop after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = DAEMON_IDLE_S)]
    pub idle_timeout: u64,
    /// Index changes without embedding their chunks (as `evident index --no-embed`).
    #[arg(long)]
    pub no_embed: bool,
}
