//! File identities from git's own index, so that a run in a git work tree
//! reads no file whose content git already vouches for.
//!
//! A file's identity is its git blob id: the SHA-1 of `blob <length>\0` and
//! its bytes. For a tracked file that `git diff-files` does not list, the
//! working copy is the blob in git's index, so the id comes from
//! `git ls-files -s` and the file is neither read nor hashed. Every other file
//! (untracked, modified, outside any work tree) is hashed the same way by
//! [`blob_id`], so ids agree across paths, branches and worktrees: the same
//! bytes have the same id wherever they are.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// Runs git in `root` without taking optional locks (evident never writes to a repository).
pub(crate) fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .map_err(|e| Error::Refused(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        let message = String::from_utf8_lossy(&out.stderr);
        return Err(Error::InvalidArgument(format!(
            "git {}: {}",
            args.first().unwrap_or(&""),
            message.trim()
        )));
    }
    Ok(out.stdout)
}

/// Path (relative to the indexed root, `/`-separated) → blob id, for the
/// tracked files whose working copy git holds unchanged.
#[derive(Debug, Default)]
pub struct GitIdentities {
    ids: HashMap<String, String>,
}

impl GitIdentities {
    /// The identities under `root`, or `None` where `root` is not in a git
    /// work tree (or git cannot answer): then every file is hashed.
    pub fn read(root: &Path) -> Option<GitIdentities> {
        let staged = git(root, &["ls-files", "-s", "-z"]).ok()?;
        let mut ids = parse_staged(&staged);
        // Tracked files whose working copy may differ from git's index (by
        // its stat data or its content) are hashed like untracked ones.
        let dirty = git(root, &["diff-files", "-z", "--name-only", "--relative"]).ok()?;
        for path in dirty.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            ids.remove(String::from_utf8_lossy(path).as_ref());
        }
        Some(GitIdentities { ids })
    }

    pub fn get(&self, rel: &str) -> Option<&str> {
        self.ids.get(rel).map(String::as_str)
    }
}

/// The indexes of the other worktrees of the repository `root` is in, for
/// the same directory within them (`<worktree>/<prefix>/.evident/index.db`).
/// Empty outside a git work tree or where no other worktree has one.
pub fn sibling_indexes(root: &Path) -> Vec<PathBuf> {
    let text = |args: &[&str]| {
        git(root, args).ok().map(|out| {
            String::from_utf8_lossy(&out)
                .trim_end_matches('\n')
                .to_string()
        })
    };
    let (Some(top), Some(prefix), Some(list)) = (
        text(&["rev-parse", "--show-toplevel"]),
        text(&["rev-parse", "--show-prefix"]),
        text(&["worktree", "list", "--porcelain"]),
    ) else {
        return Vec::new();
    };
    let own = Path::new(&top).canonicalize().ok();
    list.lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(PathBuf::from)
        .filter(|tree| tree.canonicalize().ok() != own)
        .map(|tree| crate::store::index_path(&tree.join(&prefix)))
        .filter(|index| index.is_file())
        .collect()
}

/// `ls-files -s -z` records (`<mode> <blob> <stage>\t<path>\0`) → path → blob,
/// for regular files at stage 0 (a conflicted path has no single blob; a
/// symlink or submodule is not a file that is read).
fn parse_staged(out: &[u8]) -> HashMap<String, String> {
    let mut ids = HashMap::new();
    for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((meta, path)) = record.split_once('\t') else {
            continue;
        };
        let mut fields = meta.split(' ');
        let (Some(mode), Some(blob), Some(stage)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if stage == "0" && (mode == "100644" || mode == "100755") {
            ids.insert(path.to_string(), blob.to_string());
        }
    }
    ids
}

/// The git blob id of `bytes`, as `git hash-object` prints it.
pub fn blob_id(bytes: &[u8]) -> String {
    let mut hasher = sha1_smol::Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher.digest().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`, and the empty blob.
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn staged_records_keep_regular_files_at_stage_zero() {
        let out = b"100644 ce013625030ba8dba906f756967f9e9ca394464a 0\ta b.py\0\
100755 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 0\tbin/run.sh\0\
120000 ce013625030ba8dba906f756967f9e9ca394464a 0\tlink.py\0\
160000 ce013625030ba8dba906f756967f9e9ca394464a 0\tvendor/sub\0\
100644 ce013625030ba8dba906f756967f9e9ca394464a 1\tconflict.py\0\
100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 2\tconflict.py\0";
        let ids = parse_staged(out);
        let mut paths: Vec<&str> = ids.keys().map(String::as_str).collect();
        paths.sort_unstable();
        assert_eq!(paths, ["a b.py", "bin/run.sh"]);
        assert_eq!(ids["a b.py"], "ce013625030ba8dba906f756967f9e9ca394464a");
    }
}
