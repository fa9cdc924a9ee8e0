use std::path::PathBuf;

/// Everything that can go wrong in `evident-index`, each with the fix in its message.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no index at {}: run `evident index` in the repository first", .0.display())]
    NoIndex(PathBuf),
    #[error(
        "the index at {} has schema version {found}, this evident expects {expected}: run `evident index --rebuild`",
        path.display()
    )]
    SchemaMismatch {
        path: PathBuf,
        found: String,
        expected: u32,
    },
    #[error("the index at {} is damaged ({source}): run `evident index`, which builds it again (your files are not touched)", path.display())]
    Corrupt { path: PathBuf, source: DbError },
    /// SQLite found a damaged page while answering: same fix as `Corrupt`.
    #[error("the index is damaged ({0}): run `evident index`, which builds it again (your files are not touched)")]
    Damaged(DbError),
    #[error("{} is a directory, not an index: move it away, then run `evident index`", .0.display())]
    IndexIsDirectory(PathBuf),
    #[error("the index at {} is on a read-only file system and has an unfinished write-ahead log, which SQLite cannot read there ({source}): index a writable copy", path.display())]
    ReadOnlyWithLog { path: PathBuf, source: DbError },
    #[error("{} does not exist", .0.display())]
    NoSuchPath(PathBuf),
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("refused: {0}")]
    Refused(String),
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A well-formed question with no answer in this index (no definition by
    /// that name): "nothing found", not a failure.
    #[error("{0}")]
    NotFound(String),
    #[error("{} is not indexed (unsupported language, ignored, or skipped); `evident status` lists what is", .0)]
    NotIndexed(String),
    #[error("invalid configuration in {}: {message}", path.display())]
    Config { path: PathBuf, message: String },
    #[error("interrupted; the index keeps every batch committed so far, and running the same command again resumes")]
    Interrupted,
    #[error("embedding stopped: {message} ({embedded} chunks embedded before it are kept; `evident embed` resumes)")]
    Embedding { message: String, embedded: u64 },
    #[error("{} is not a SCIP index that can be read ({message}): write it again with its SCIP indexer", path.display())]
    Scip { path: PathBuf, message: String },
    #[error("database error: {0}")]
    Db(DbError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// An SQLite error, kept opaque so that no `rusqlite` type is part of this
/// crate's API (the storage engine is the store's business alone).
#[derive(Debug)]
pub struct DbError(DbErrorKind);

#[derive(Debug)]
enum DbErrorKind {
    Sqlite(rusqlite::Error),
    Message(String),
}

impl DbError {
    pub(crate) fn message(text: &str) -> DbError {
        DbError(DbErrorKind::Message(text.to_string()))
    }

    fn is_damage(&self) -> bool {
        use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
        match &self.0 {
            DbErrorKind::Sqlite(e) => {
                matches!(e.sqlite_error_code(), Some(DatabaseCorrupt | NotADatabase))
            }
            DbErrorKind::Message(_) => false,
        }
    }
}

/// SQLite's own words, once: its message when it gave one, else its code's.
impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            DbErrorKind::Sqlite(rusqlite::Error::SqliteFailure(_, Some(text))) => f.write_str(text),
            DbErrorKind::Sqlite(rusqlite::Error::SqliteFailure(code, None)) => {
                f.write_str(rusqlite::ffi::code_to_str(code.extended_code))
            }
            DbErrorKind::Sqlite(e) => e.fmt(f),
            DbErrorKind::Message(text) => f.write_str(text),
        }
    }
}

/// No source: the message above already holds all SQLite said.
impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> DbError {
        DbError(DbErrorKind::Sqlite(e))
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        let e = DbError::from(e);
        if e.is_damage() {
            Error::Damaged(e)
        } else {
            Error::Db(e)
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The index file itself is damaged: the next run builds it again.
    pub fn is_damage(&self) -> bool {
        matches!(self, Error::Corrupt { .. } | Error::Damaged(_))
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
