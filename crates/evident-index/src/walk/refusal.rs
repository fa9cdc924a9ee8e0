//! Why a path may not be read: one typed refusal for every check the
//! sandbox makes, worded once.

use std::fmt;

/// A refusal to read a path, with what it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No path at all.
    Empty,
    /// A spelling that only makes sense as an attempt to get out
    /// ([`super::sandbox::suspicious`] says why).
    Suspicious { path: String, why: String },
    /// An absolute path elsewhere, or a root or prefix component.
    Outside(String),
    /// `..` past the top.
    Leaves(String),
    /// The repository root itself, where a file was wanted.
    Root(String),
    /// A secret file (`[secrets]`), by its name.
    Secret(String),
    /// A path that leads, through symlinks, to a secret file.
    SecretTarget { path: String, target: String },
    /// A symlink to nothing.
    BrokenSymlink(String),
    /// A scope path that is a broken or looping symlink.
    BrokenOrLooping(String),
    /// A path the system cannot resolve (a symlink loop).
    Unresolvable { path: String, error: String },
    /// A symlink that leads out of the repository.
    SymlinkOut(String),
    /// A directory, FIFO, device…
    NotRegular(String),
    /// A file with more than one name: it may be a file from anywhere.
    HardLinks { path: String, links: u64 },
    /// Over `index.max_file_size`.
    TooLarge { path: String, size: u64, limit: u64 },
    /// A file with NUL bytes.
    Binary(String),
    /// A code file asked for under a `[docs] dirs` mount.
    OnlyDocuments { path: String, mount: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Empty => write!(f, "empty path"),
            Refusal::Suspicious { path, why } => write!(f, "{path:?} {why}"),
            Refusal::Outside(path) => write!(f, "{path} is outside the repository"),
            Refusal::Leaves(path) => write!(f, "{path} leaves the repository"),
            Refusal::Root(path) => write!(f, "{path} names the repository root, not a file"),
            Refusal::Secret(path) => write!(f, "{path} is a secret file and is never read"),
            Refusal::SecretTarget { path, target } => {
                write!(f, "{path} leads to {target}, a secret file that is never read")
            }
            Refusal::BrokenSymlink(path) => write!(f, "{path} is a broken symlink"),
            Refusal::BrokenOrLooping(path) => write!(f, "{path} is a broken or looping symlink"),
            Refusal::Unresolvable { path, error } => {
                write!(f, "{path} cannot be resolved ({error})")
            }
            Refusal::SymlinkOut(path) => {
                write!(f, "{path} is a symlink that leads outside the repository")
            }
            Refusal::NotRegular(path) => write!(f, "{path} is not a regular file"),
            Refusal::HardLinks { path, links } => write!(
                f,
                "{path} has {links} hard links: it may be a file from outside the repository, so it is not read"
            ),
            Refusal::TooLarge { path, size, limit } => write!(
                f,
                "{path} is {size} bytes, over the {limit}-byte limit (index.max_file_size); it is not read"
            ),
            Refusal::Binary(path) => {
                write!(f, "{path} is a binary file (it has NUL bytes); it is not read")
            }
            Refusal::OnlyDocuments { path, mount } => {
                write!(f, "{path}: only documents are read from {mount}")
            }
        }
    }
}

impl From<Refusal> for crate::error::Error {
    fn from(refusal: Refusal) -> Self {
        crate::error::Error::Refused(refusal.to_string())
    }
}
