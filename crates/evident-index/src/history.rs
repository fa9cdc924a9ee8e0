//! The repository's recent history, read from git: each commit's message
//! and the files it changed, for search's history signal (a report reads
//! like the messages of past changes to the same files: bug localization's
//! "similar fixed reports"). Only `HEAD`'s own ancestry is read, never other
//! branches, and only the paths under the indexed root, relative to it.
//!
//! It must not write to the repository, and a root outside git (or a git
//! that cannot answer) simply has no history.

use std::path::Path;

use crate::walk::git::git;

/// How many of `HEAD`'s latest commits are read (merges left out).
const MAX_COMMITS: usize = 2000;
/// A commit that changed more files than this says little about where its
/// message belongs (a rename, a reformat, a release): it is left out.
const MAX_PATHS: usize = 20;
/// A message is kept up to this many bytes (a subject and its body).
const MAX_MESSAGE_BYTES: usize = 4096;

/// One past commit: what it said and what it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PastCommit {
    pub oid: String,
    pub message: String,
    /// Relative to the indexed root, `/`-separated.
    pub paths: Vec<String>,
}

/// The commit `HEAD` names, or `None` outside a git work tree or before
/// the first commit.
pub(crate) fn head(root: &Path) -> Option<String> {
    let out = git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).ok()?;
    let oid = String::from_utf8_lossy(&out).trim().to_string();
    (!oid.is_empty()).then_some(oid)
}

/// [`head`] on a thread of its own: a run asks while it walks and parses.
pub(crate) fn head_meanwhile(root: &Path) -> std::thread::JoinHandle<Option<String>> {
    let root = root.to_path_buf();
    std::thread::spawn(move || head(&root))
}

/// Of the latest [`MAX_COMMITS`] commits of `head`'s ancestry, those that
/// changed something under `root`, newest first; those that changed too
/// many files are left out. No path filter is given to git: a root that
/// few commits touch would make it walk the whole history for enough.
/// `None` when git fails: the run keeps what it had and the next one asks
/// again.
pub(crate) fn read(root: &Path, head: &str) -> Option<Vec<PastCommit>> {
    let count = format!("--max-count={MAX_COMMITS}");
    // `-z`: paths come verbatim, never quoted.
    let args = [
        "log",
        "--no-merges",
        &count,
        "--relative",
        "--name-only",
        "-z",
        "--format=%x1e%H%x1f%B%x1f",
        head,
        "--",
    ];
    git(root, &args).ok().map(|out| parse_log(&out))
}

/// `log -z --name-only --format=<RS>%H<US>%B<US>` output: per commit, the
/// separator, the id, the message, then its paths, each ended by NUL.
fn parse_log(out: &[u8]) -> Vec<PastCommit> {
    let text = String::from_utf8_lossy(out);
    let mut commits = Vec::new();
    for record in text.split('\u{1e}').filter(|r| !r.is_empty()) {
        let mut fields = record.splitn(3, '\u{1f}');
        let (Some(oid), Some(message), Some(paths)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let paths: Vec<String> = paths
            .split('\0')
            .map(|p| p.trim_start_matches('\n'))
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        if paths.is_empty() || paths.len() > MAX_PATHS {
            continue;
        }
        commits.push(PastCommit {
            oid: oid.trim().to_string(),
            message: cut(message.trim(), MAX_MESSAGE_BYTES).to_string(),
            paths,
        });
    }
    commits
}

/// `text` cut to at most `bytes`, at a character boundary.
fn cut(text: &str, bytes: usize) -> &str {
    let mut end = text.len().min(bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_read_commit_by_commit_with_its_paths() {
        let out = b"\x1eaaa\x1fFix the pager\n\nIt hung.\n\x1f\0\nsrc/pager.py\0tests/t.py\0\
                    \x1ebbb\x1fEmpty\n\x1f\0\
                    \x1eccc\x1fTwo words\n\x1f\0\nsp ace/\xc3\xa9.py\0";
        let commits = parse_log(out);
        assert_eq!(
            commits.len(),
            2,
            "a commit that changed nothing here is left out"
        );
        assert_eq!(commits[0].oid, "aaa");
        assert_eq!(commits[0].message, "Fix the pager\n\nIt hung.");
        assert_eq!(commits[0].paths, ["src/pager.py", "tests/t.py"]);
        assert_eq!(commits[1].paths, ["sp ace/é.py"]);
    }

    #[test]
    fn a_commit_of_many_files_is_left_out() {
        let mut out = b"\x1ebig\x1fReformat\n\x1f\0".to_vec();
        for i in 0..=MAX_PATHS {
            out.extend(format!("\nf{i}.py\0").as_bytes());
        }
        assert!(parse_log(&out).is_empty());
    }

    #[test]
    fn a_long_message_is_cut_at_a_character() {
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        assert_eq!(cut(&long, 5), "éé");
    }
}
