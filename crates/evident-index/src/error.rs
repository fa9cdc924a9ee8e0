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
    Corrupt {
        path: PathBuf,
        source: rusqlite::Error,
    },
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
    Db(#[from] rusqlite::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
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
