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
    #[error("the index at {} is not an evident index or is damaged ({source}): run `evident index --rebuild`", path.display())]
    Corrupt { path: PathBuf, source: DbError },
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
pub struct DbError(rusqlite::Error);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> DbError {
        DbError(e)
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        Error::Db(DbError(e))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
