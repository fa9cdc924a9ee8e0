//! The path sandbox: turns a path someone asked for into a file inside the
//! repository, or a refusal that says why.

use std::path::{Component, Path, PathBuf};

use super::refusal::Refusal;
use crate::config::{DocsDir, SecretPolicy};
use crate::error::{Error, Result};

/// A file that is allowed to be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    /// Relative, `/`-separated, as stored in the index.
    pub rel: String,
    /// Absolute, symlinks resolved.
    pub abs: PathBuf,
}

/// Resolves `requested` (relative to `root`, or absolute inside it) to a
/// regular, non-secret file inside the repository after symlink resolution.
pub fn resolve(root: &Path, requested: &str, secrets: &SecretPolicy) -> Result<RepoFile> {
    let root = root
        .canonicalize()
        .map_err(|e| Error::io(root.to_path_buf(), e))?;
    resolve_in_canonical(&root, requested, secrets)
}

/// `requested` (relative to the canonical `root`, or absolute inside it) as a
/// `/`-separated relative path with `.` and `..` resolved by text alone; empty
/// for the root itself. A path that is elsewhere or climbs out is refused.
pub fn lexical(root: &Path, requested: &str) -> Result<String> {
    let refuse = |refusal: Refusal| Err(refusal.into());
    if let Some(why) = suspicious(requested) {
        let path = requested.to_string();
        return refuse(Refusal::Suspicious { path, why });
    }
    let requested_path = Path::new(requested);
    let relative = if requested_path.is_absolute() {
        match requested_path.strip_prefix(root) {
            Ok(rel) => rel,
            Err(_) => return refuse(Refusal::Outside(requested.into())),
        }
    } else {
        requested_path
    };
    let mut parts: Vec<String> = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return refuse(Refusal::Leaves(requested.into()));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return refuse(Refusal::Outside(requested.into()))
            }
        }
    }
    Ok(parts.join("/"))
}

/// Characters that look like `.` or `/` but are not: a path written with them
/// names nothing here, and is most likely an attempt to slip past a check.
const LOOK_ALIKES: &[char] = &[
    '\u{2024}', '\u{2025}', '\u{2026}', '\u{FE52}', '\u{FF0E}', '\u{3002}',
    '\u{FF61}', // dots
    '\u{2215}', '\u{2044}', '\u{FF0F}', '\u{29F8}', '\u{2571}', // slashes
    '\u{FF3C}', '\u{2216}', '\u{29F9}', // backslashes
];

/// Why `requested` is refused before it is even normalised, if it is:
/// spellings that only make sense as an attempt to get out. The walk leaves
/// out files whose names these refuse, so the index holds nothing the tools
/// cannot read.
pub(crate) fn suspicious(requested: &str) -> Option<String> {
    if requested.contains('\0') {
        return Some("contains a NUL byte".into());
    }
    if let Some(c) = requested.chars().find(|c| c.is_control()) {
        return Some(format!("contains a control character (U+{:04X})", c as u32));
    }
    if requested.starts_with('~') {
        return Some(
            "starts with ~: paths are relative to the repository root, and ~ is not expanded"
                .into(),
        );
    }
    if requested.contains('\\') {
        return Some("contains a backslash: separate directories with /".into());
    }
    let lower = requested.to_ascii_lowercase();
    if let Some(code) = ["%2e", "%2f", "%5c", "%00", "%25"]
        .iter()
        .find(|code| lower.contains(*code))
    {
        return Some(format!(
            "looks URL-encoded ({code}): paths are taken literally"
        ));
    }
    if let Some(c) = requested.chars().find(|c| LOOK_ALIKES.contains(c)) {
        return Some(format!(
            "contains {c:?} (U+{:04X}), which looks like a dot or a slash but is not one",
            c as u32
        ));
    }
    None
}

/// [`resolve`] for a root that is already canonical (saves its syscalls per file).
pub fn resolve_in_canonical(
    root: &Path,
    requested: &str,
    secrets: &SecretPolicy,
) -> Result<RepoFile> {
    let refuse = |refusal: Refusal| Err(refusal.into());
    if requested.is_empty() {
        return refuse(Refusal::Empty);
    }
    // Lexical normalisation first, so `a/../../x` is refused before touching the disk.
    let lexical_rel = lexical(root, requested)?;
    if lexical_rel.is_empty() {
        return refuse(Refusal::Root(requested.into()));
    }
    if secrets.is_secret(&lexical_rel) {
        return refuse(Refusal::Secret(lexical_rel));
    }
    let joined = root.join(&lexical_rel);
    let abs = match joined.canonicalize() {
        Ok(abs) => abs,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if joined.symlink_metadata().is_ok() {
                return refuse(Refusal::BrokenSymlink(lexical_rel));
            }
            return Err(Error::NoSuchPath(PathBuf::from(lexical_rel)));
        }
        Err(e) => {
            // ELOOP and friends: a symlink loop is a refusal, not an I/O mystery.
            let error = e.to_string();
            return refuse(Refusal::Unresolvable {
                path: lexical_rel,
                error,
            });
        }
    };
    let Ok(real_rel) = abs.strip_prefix(root) else {
        return refuse(Refusal::SymlinkOut(lexical_rel));
    };
    let real_rel = real_rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    if secrets.is_secret(&real_rel) {
        return refuse(Refusal::SecretTarget {
            path: lexical_rel,
            target: real_rel,
        });
    }
    let metadata = std::fs::metadata(&abs).map_err(|e| Error::io(abs.clone(), e))?;
    if !metadata.is_file() {
        return refuse(Refusal::NotRegular(lexical_rel));
    }
    if let Some(links) = extra_hard_links(&metadata) {
        let path = lexical_rel;
        return refuse(Refusal::HardLinks { path, links });
    }
    Ok(RepoFile {
        rel: lexical_rel,
        abs,
    })
}

/// Whether `bytes` are binary rather than text: a NUL in the first 8,000 bytes
/// (git's rule).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|&b| b == 0)
}

/// The bytes of a file the sandbox let through, when they may be read:
/// within `limit` (`index.max_file_size`) and not binary. `shown` is the
/// path as the refusal says it. The one check every reader of file text
/// (snippets, `diff`'s untracked files) makes after [`resolve`].
pub fn read_admitted(
    file: &RepoFile,
    shown: &str,
    limit: u64,
) -> std::result::Result<Vec<u8>, String> {
    let unreadable = |e: std::io::Error| format!("{shown}: {e}");
    let size = std::fs::metadata(&file.abs).map_err(unreadable)?.len();
    if size > limit {
        let path = shown.to_string();
        return Err(Refusal::TooLarge { path, size, limit }.to_string());
    }
    let bytes = std::fs::read(&file.abs).map_err(unreadable)?;
    if looks_binary(&bytes) {
        return Err(Refusal::Binary(shown.to_string()).to_string());
    }
    Ok(bytes)
}

/// [`resolve_in_canonical`], where a path under `@NAME/` is a document in the
/// `[docs] dirs` directory mounted there, under the same rules inside it:
/// no escape from it, no symlink out of it, no secret file, documents only.
pub fn resolve_with_docs(
    root: &Path,
    docs_dirs: &[DocsDir],
    requested: &str,
    secrets: &SecretPolicy,
) -> Result<RepoFile> {
    let Some((dir, rest)) = mount_of(docs_dirs, requested) else {
        return resolve_in_canonical(root, requested, secrets);
    };
    let inner = resolve_in_canonical(&dir.path, rest, secrets).map_err(|e| match e {
        Error::Refused(why) => Error::Refused(format!(
            "{why} (in {}, mounted as {})",
            dir.path.display(),
            dir.mount
        )),
        other => other,
    })?;
    if !matches!(
        super::format::Format::for_path(&inner.rel),
        Some(super::format::Format::Doc(_))
    ) {
        return Err(Refusal::OnlyDocuments {
            path: requested.into(),
            mount: dir.mount.clone(),
        }
        .into());
    }
    Ok(RepoFile {
        rel: format!("{}/{}", dir.mount, inner.rel),
        abs: inner.abs,
    })
}

/// Checks a path used as a scope (a file, or a directory to search under; it
/// need not exist): after normalisation and symlink resolution it stays in the
/// repository or in the `[docs] dirs` mount it names, and it is not secret.
/// The agent's registry checks every path argument here before a tool runs.
pub fn check_scope(
    root: &Path,
    docs_dirs: &[DocsDir],
    requested: &str,
    secrets: &SecretPolicy,
) -> Result<()> {
    let refuse = |refusal: Refusal| Err(refusal.into());
    let root = root
        .canonicalize()
        .map_err(|e| Error::io(root.to_path_buf(), e))?;
    // Inside a mount, the same rules hold relative to the mounted directory.
    let (base, inside, lexical) = match mount_of(docs_dirs, requested) {
        Some((dir, rest)) => {
            let inside = lexical(&dir.path, rest)?;
            let shown = format!("{}/{inside}", dir.mount);
            (dir.path.as_path(), inside, shown)
        }
        None => {
            let inside = lexical(&root, requested)?;
            (root.as_path(), inside.clone(), inside)
        }
    };
    if secrets.is_secret(&inside) {
        return refuse(Refusal::Secret(lexical));
    }
    let joined = base.join(&inside);
    match joined.canonicalize() {
        Ok(real) => {
            let Ok(real_rel) = real.strip_prefix(base) else {
                return refuse(Refusal::SymlinkOut(lexical));
            };
            let real_rel = real_rel.to_string_lossy().replace('\\', "/");
            if secrets.is_secret(&real_rel) {
                let target = real_rel;
                return refuse(Refusal::SecretTarget {
                    path: lexical,
                    target,
                });
            }
            Ok(())
        }
        Err(_) if joined.symlink_metadata().is_ok() => refuse(Refusal::BrokenOrLooping(lexical)),
        // A scope that does not exist matches nothing; that is not a refusal.
        Err(_) => Ok(()),
    }
}

/// The `[docs] dirs` mount a requested path names (`@NAME/...`, after any
/// leading `./`), and the path inside it, still to be checked against the
/// mounted directory (so `@NAME/../x` leaves the mount and is refused).
fn mount_of<'a>(dirs: &'a [DocsDir], requested: &'a str) -> Option<(&'a DocsDir, &'a str)> {
    let trimmed = requested.trim_start_matches("./");
    dirs.iter().find_map(|dir| {
        trimmed
            .strip_prefix(dir.mount.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .map(|rest| (dir, rest))
    })
}

/// The link count of a file with more than one name (a hard link may make a
/// file from anywhere on the disk look as if it were in the repository).
pub fn extra_hard_links(metadata: &std::fs::Metadata) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (metadata.nlink() > 1).then(|| metadata.nlink())
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, SecretPolicy) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join(".env"), "TOKEN=1\n").unwrap();
        (dir, SecretPolicy::new(&[]).unwrap())
    }

    fn refusal(root: &Path, path: &str, secrets: &SecretPolicy) -> String {
        match resolve(root, path, secrets) {
            Err(Error::Refused(why)) => why,
            other => panic!("{path}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn plain_and_dotted_paths_resolve_inside() {
        let (dir, s) = repo();
        assert_eq!(resolve(dir.path(), "src/a.py", &s).unwrap().rel, "src/a.py");
        assert_eq!(
            resolve(dir.path(), "./src/../src/a.py", &s).unwrap().rel,
            "src/a.py"
        );
        let abs = dir.path().canonicalize().unwrap().join("src/a.py");
        assert_eq!(
            resolve(dir.path(), abs.to_str().unwrap(), &s).unwrap().rel,
            "src/a.py"
        );
    }

    #[test]
    fn escapes_and_secrets_are_refused_with_reasons() {
        let (dir, s) = repo();
        assert!(refusal(dir.path(), "../etc/passwd", &s).contains("leaves the repository"));
        assert!(refusal(dir.path(), "src/../../x", &s).contains("leaves the repository"));
        assert!(refusal(dir.path(), "/etc/passwd", &s).contains("outside the repository"));
        assert!(refusal(dir.path(), ".env", &s).contains("secret"));
        assert!(refusal(dir.path(), "a\0b", &s).contains("NUL"));
        assert!(refusal(dir.path(), "src", &s).contains("not a regular file"));
        assert!(matches!(
            resolve(dir.path(), "missing.py", &s),
            Err(Error::NoSuchPath(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_repo_and_loops_are_refused() {
        let (dir, s) = repo();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "x").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap()
        };
        link(&outside.path().join("secret.txt"), "out.txt");
        link(outside.path(), "outdir");
        link(&dir.path().join("loop_b"), "loop_a");
        link(&dir.path().join("loop_a"), "loop_b");
        link(&dir.path().join(".env"), "innocent.txt");
        link(&dir.path().join("src/a.py"), "alias.py");
        assert!(refusal(dir.path(), "out.txt", &s).contains("symlink that leads outside"));
        assert!(refusal(dir.path(), "outdir/secret.txt", &s).contains("symlink that leads outside"));
        assert!(refusal(dir.path(), "loop_a", &s).contains("cannot be resolved"));
        assert!(refusal(dir.path(), "innocent.txt", &s).contains("secret"));
        assert_eq!(resolve(dir.path(), "alias.py", &s).unwrap().rel, "alias.py");
    }
}
