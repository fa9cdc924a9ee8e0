//! The tables and indexes of the database file, and its version.

use rusqlite::Connection;

use crate::error::Result;

/// Bump on any change to the tables below *or to what extraction and
/// resolution produce* (queries, qualified-name rules): unchanged files are not
/// re-parsed, so only a version change makes old rows go. Older indexes are
/// refused with advice to rebuild.
pub const SCHEMA_VERSION: u32 = 25;

pub const INDEX_DIR: &str = ".evident";
pub const INDEX_FILE: &str = "index.db";

/// How the full-text tables cut text into terms: Unicode words without
/// their accents, each reduced to its Porter stem, so a report's "defaults",
/// "vars" and "printing" meet the code's `default`, `var` and `print`
/// (BENCHMARKS.md, "Stems"). A query's words pass through the same
/// tokenizer, so they meet the same stems.
macro_rules! text_tokenizer {
    () => {
        "porter unicode61 remove_diacritics 2"
    };
}
pub(crate) use text_tokenizer;

pub(super) const SCHEMA: &str = concat!(
    "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE files (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,  -- relative, '/'-separated
    lang          TEXT NOT NULL,
    module        TEXT NOT NULL,         -- prefix of the file's qualified names
    hash          TEXT NOT NULL,         -- git blob id of the content (walk::git)
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    line_count    INTEGER NOT NULL,
    syntax_errors INTEGER NOT NULL,      -- 1 when tree-sitter recovered from errors
    definitions   INTEGER NOT NULL,      -- row counts, so totals need no table scan
    imports       INTEGER NOT NULL,
    calls         INTEGER NOT NULL
);

CREATE TABLE symbols (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL,
    parent_id      INTEGER,              -- enclosing definition in the same file
    kind           TEXT NOT NULL,
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    signature      TEXT NOT NULL,
    doc            TEXT,
    bases          TEXT,                 -- base classes, one per line
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    declaration    INTEGER NOT NULL DEFAULT 0  -- 1: declared here, defined where the same qualified name has 0
);

-- Each class's bases by their last identifier (`Model` for `models.Model`),
-- so that the subclasses of a class are found by its name without reading
-- every class.
CREATE TABLE base_names (
    name      TEXT NOT NULL,
    symbol_id INTEGER NOT NULL,
    file_id   INTEGER NOT NULL
);

CREATE TABLE imports (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    module     TEXT NOT NULL,
    name       TEXT,                     -- '*' for glob imports
    alias      TEXT,
    binding    TEXT,                     -- the local name it binds; NULL for globs
    target     TEXT                      -- resolved repo path (a file, or a package directory)
);

CREATE TABLE calls (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL,
    line         INTEGER NOT NULL,
    callee       TEXT NOT NULL,
    callee_name  TEXT NOT NULL,          -- last identifier of the callee
    callee_head  TEXT NOT NULL,          -- first identifier of the callee
    enclosing_id INTEGER,                -- innermost enclosing definition
    arguments    TEXT                    -- as written, unit-separated (`encode_arguments`)
);

-- Local variables bound to constructor calls (`x = Cls()`), for `x.m()`.
CREATE TABLE assignments (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL,
    line         INTEGER NOT NULL,
    name         TEXT NOT NULL,
    value        TEXT NOT NULL,
    enclosing_id INTEGER
);

-- The call graph: which definition(s) a call site resolves to.
-- The call's line and enclosing definition are copied from `calls`, so that
-- `callers` and `impact` walk one covering index (`edges_callee`) and read
-- nothing else for the sites they only count.
CREATE TABLE edges (
    call_id    INTEGER NOT NULL,
    file_id    INTEGER NOT NULL,         -- the calling file
    callee_id  INTEGER NOT NULL,         -- symbols.id
    confidence TEXT NOT NULL,            -- precise (SCIP) | exact | inferred | name_only
    line       INTEGER NOT NULL,         -- = calls.line
    caller_id  INTEGER                   -- = calls.enclosing_id (NULL: module level)
);

-- Calls that reach outside the repository: a name imported from a module
-- that is not in it (`os.path.join`, `requests.get`, a method inherited from
-- `unittest.TestCase`), or a builtin (`len`, `console.log`). Named, not dropped:
-- unresolved means that nothing is known.
CREATE TABLE externals (
    call_id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,            -- the calling file
    target  TEXT NOT NULL,               -- the dotted name outside the repository
    kind    TEXT NOT NULL                -- external | builtin
);

-- Calls whose resolution used what a parameter of `function` was given at
-- the calls of that function in the same file (argument flow): when one of
-- those calls is resolved again, so are these.
CREATE TABLE argument_calls (
    call_id  INTEGER NOT NULL,
    file_id  INTEGER NOT NULL,
    function TEXT NOT NULL,              -- the function's name, as calls name it
    PRIMARY KEY (call_id, function)
) WITHOUT ROWID;

CREATE TABLE skipped (
    path   TEXT PRIMARY KEY,
    reason TEXT NOT NULL
) WITHOUT ROWID;

-- A compiler's index (SCIP, `index.scip`), merged into the graph (scip/):
-- every document it has, whether its file still matches it, and the
-- occurrences, as SCIP wrote them (0-based, in the document's encoding) and
-- as read in the file (1-based line, 0-based character columns, the text
-- there: NULL while the document is stale). Kept by path: file ids change
-- when a file is indexed again, and a stale document is checked again then.
CREATE TABLE scip_documents (
    path        TEXT PRIMARY KEY,
    utf16       INTEGER NOT NULL,        -- 1: offsets count UTF-16 units, 0: bytes
    state       TEXT NOT NULL,           -- fresh | stale | not_indexed
    reason      TEXT                     -- why stale
) WITHOUT ROWID;

CREATE TABLE scip_symbols (
    id     INTEGER PRIMARY KEY,
    symbol TEXT NOT NULL UNIQUE          -- a local's is prefixed with its path and a NUL
);

CREATE TABLE scip_occurrences (
    path       TEXT NOT NULL,
    raw_line   INTEGER NOT NULL,
    raw_start  INTEGER NOT NULL,
    raw_end    INTEGER NOT NULL,
    symbol_id  INTEGER NOT NULL,
    definition INTEGER NOT NULL,
    line       INTEGER,
    start_col  INTEGER,
    end_col    INTEGER,
    name       TEXT
);
CREATE INDEX scip_occurrences_at ON scip_occurrences(path, line);
CREATE INDEX scip_occurrences_symbol ON scip_occurrences(symbol_id, definition);

-- Search chunks (see chunk.rs); their text lives only in the full-text index.
CREATE TABLE chunks (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL,
    symbol_id      INTEGER,              -- the definition, for definition chunks
    kind           TEXT NOT NULL,
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL
);

-- Vectors by the hash of the text they embed: a chunk whose text did not
-- change finds its vector again after its file is re-indexed. Every vector
-- is stored unit-length and quantised to one signed byte per dimension,
-- after a little-endian f32 scale (`value ≈ byte × scale`): about 260 bytes
-- for 256 dimensions, which fit a page's row (f32s spilled each row to a
-- page of its own and made this the largest table).
CREATE TABLE vectors (
    hash   TEXT NOT NULL,
    model  TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (hash, model)
) WITHOUT ROWID;

-- Each chunk's vector for a model, as in `vectors`, packed by ranges of
-- chunk ids (id / 128): the rows vector search scans, and the only place a
-- chunk's vector is kept. Each entry is the chunk id (little-endian i64) and
-- its vector.
CREATE TABLE vector_blocks (
    model   TEXT NOT NULL,
    block   INTEGER NOT NULL,
    count   INTEGER NOT NULL,
    vectors BLOB NOT NULL,
    PRIMARY KEY (model, block)
);

-- Contentless: snippets are read from the files, so the text is not stored twice.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    name, signature_doc, body, path,
    content = '', contentless_delete = 1, tokenize = '",
    text_tokenizer!(),
    "'
);

-- Each file's text as one document (rowid = files.id), for the whole-file
-- lexical signal: a long query's words spread over a file's definitions.
CREATE VIRTUAL TABLE files_fts USING fts5(
    path, text,
    content = '', contentless_delete = 1, tokenize = '",
    text_tokenizer!(),
    "'
);

-- HEAD's latest commits (history.rs): each one's message, in full text
-- (rowid = history_commits.id), and the paths it changed under the root,
-- for search's history signal. Replaced whole when HEAD moves.
CREATE TABLE history_commits (
    id      INTEGER PRIMARY KEY,
    oid     TEXT NOT NULL,
    subject TEXT NOT NULL
);
CREATE TABLE history_paths (
    commit_id INTEGER NOT NULL,
    path      TEXT NOT NULL,
    PRIMARY KEY (commit_id, path)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE history_fts USING fts5(
    message,
    content = '', contentless_delete = 1, tokenize = '",
    text_tokenizer!(),
    "'
);
"
);

/// Secondary indexes. A fresh index is bulk-loaded without them and they are
/// built once at the end, which is much cheaper than maintaining them row by row.
const SECONDARY_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS symbols_qualified ON symbols(qualified_name);
CREATE INDEX IF NOT EXISTS symbols_with_bases ON symbols(id) WHERE bases IS NOT NULL;
CREATE INDEX IF NOT EXISTS base_names_name ON base_names(name);
CREATE INDEX IF NOT EXISTS base_names_file ON base_names(file_id);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS imports_module ON imports(module);
CREATE INDEX IF NOT EXISTS imports_target ON imports(target);
CREATE INDEX IF NOT EXISTS calls_file ON calls(file_id);
CREATE INDEX IF NOT EXISTS calls_callee_name ON calls(callee_name);
CREATE INDEX IF NOT EXISTS assignments_file ON assignments(file_id);
CREATE INDEX IF NOT EXISTS edges_call ON edges(call_id);
CREATE INDEX IF NOT EXISTS edges_callee ON edges(callee_id, file_id, line, caller_id, call_id, confidence);
CREATE INDEX IF NOT EXISTS edges_file ON edges(file_id);
CREATE INDEX IF NOT EXISTS externals_file ON externals(file_id);
CREATE INDEX IF NOT EXISTS argument_calls_file ON argument_calls(file_id, function);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS history_paths_path ON history_paths(path);
";

/// Builds the secondary indexes if they are missing (after a bulk load, or
/// after a run that was interrupted before building them).
pub(crate) fn ensure_secondary_indexes(conn: &Connection) -> Result<()> {
    conn.execute_batch(SECONDARY_INDEXES)?;
    Ok(())
}
