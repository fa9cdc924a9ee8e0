//! Git change analysis: what a diff touched, and what that may break.
//!
//! Uses the `git` binary (read-only subcommands only: `rev-parse`, `diff`,
//! `show`, `ls-files`) with fixed arguments; a user-given revision is
//! validated and passed after `--end-of-options`. Both sides of each changed
//! file are parsed in memory with the same extractor as the index, so deleted
//! definitions are found too; the impact of each touched definition comes from
//! the index.

use std::collections::{BTreeSet, HashSet};

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::lang;
use crate::lang::extract::{self, FileFacts};
use crate::query::Index;
use crate::walk::git::git;

/// git's empty tree: the base of a repository with no commits.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const MAX_HUNK_LINES: usize = 60;

/// What to compare.
#[derive(Debug, Clone, Default)]
pub struct DiffRequest {
    /// Compare `base` with `HEAD` instead of the working tree with `HEAD`.
    pub base: Option<String>,
    /// Compare the index (staged changes) with `HEAD`.
    pub staged: bool,
    /// Only these paths (files or directories, relative to the repository).
    pub paths: Vec<String>,
    /// Impact depth for touched definitions.
    pub impact_depth: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Modified,
    Deleted,
}

/// A definition the change touched, with how many callers it has.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Touched {
    pub change: Change,
    pub evidence: Evidence,
    pub direct_callers: usize,
    pub affected: usize,
    pub affected_files: usize,
    /// What may break: the nearest affected definitions, each with its chain
    /// back to this one (`via`), at most [`MAX_LISTED_AFFECTED`]; `affected`
    /// counts them all.
    pub affected_definitions: Vec<Evidence>,
    /// Unresolved call sites that may reach it (same name, receiver type unknown).
    pub possible_callers: usize,
}

/// The most affected definitions listed per touched definition.
pub const MAX_LISTED_AFFECTED: usize = 10;

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DiffReport {
    /// `working tree vs HEAD`, `index vs HEAD`, `REV..HEAD`.
    pub compared: String,
    pub hunks: Vec<Evidence>,
    pub touched: Vec<Touched>,
    /// Changed files that are binary (no hunks).
    pub binary: Vec<String>,
    pub files: usize,
}

impl DiffReport {
    /// One line: how much changed and how far it reaches.
    pub fn risk(&self) -> String {
        let touched = self.touched.len();
        let callers: usize = self.touched.iter().map(|t| t.direct_callers).sum();
        let affected: usize = self.touched.iter().map(|t| t.affected).sum();
        let possible: usize = self.touched.iter().map(|t| t.possible_callers).sum();
        // A possible caller may break too: it counts toward the level.
        let level = match affected + possible {
            0 if touched == 0 => "none",
            0..=5 => "low",
            6..=30 => "medium",
            _ => "high",
        };
        let unknown = if possible > 0 {
            format!(", and {possible} possible call site(s) whose receiver type is unknown")
        } else {
            String::new()
        };
        format!(
            "risk: {level}: {} file(s) and {touched} definition(s) changed; {callers} direct caller(s), {affected} affected definition(s) up the call graph{unknown}",
            self.files
        )
    }
}

struct FileChange {
    old_path: Option<String>,
    new_path: Option<String>,
    binary: bool,
    /// Not known to git: read from the working tree, not from `git diff`.
    untracked: bool,
    hunks: Vec<Hunk>,
}

/// One `@@ -old_start,old_count +new_start,new_count @@` block and its (capped) text.
struct Hunk {
    old_start: u32,
    old_count: u32,
    new_start: u32,
    new_count: u32,
    text: String,
    lines: usize,
}

impl Hunk {
    fn new(old_start: u32, old_count: u32, new_start: u32, new_count: u32, text: String) -> Hunk {
        let lines = text.lines().count();
        Hunk {
            old_start,
            old_count,
            new_start,
            new_count,
            text,
            lines,
        }
    }

    fn old_lines(&self) -> std::ops::Range<u32> {
        self.old_start..self.old_start + self.old_count
    }

    fn new_lines(&self) -> std::ops::Range<u32> {
        self.new_start..self.new_start + self.new_count
    }
}

/// One hunk as Evidence, at its new lines (a pure deletion sits at the line
/// it was removed before).
fn hunk_evidence(display_path: &str, h: &Hunk) -> Evidence {
    let start = h.new_start.max(1);
    let end = start + h.new_count.saturating_sub(1);
    let mut ev = Evidence::new(
        display_path,
        start,
        end,
        Kind::DiffHunk,
        display_path,
        h.text.trim_end(),
    );
    ev.reason = Some(format!(
        "-{},{} +{},{}",
        h.old_start, h.old_count, h.new_start, h.new_count
    ));
    ev
}

fn validate_rev(rev: &str) -> Result<()> {
    let ok = !rev.is_empty()
        && rev.len() <= 200
        && !rev.starts_with('-')
        && rev
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./~^@{}-".contains(c))
        && !rev.contains("..");
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{rev:?} is not a revision evident accepts (a branch, tag, commit, HEAD~N; no ranges, no options)"
        )))
    }
}

fn parse_diff(text: &str) -> Vec<FileChange> {
    let mut files: Vec<FileChange> = Vec::new();
    let unquote = |p: &str| p.trim_matches('"').to_string();
    for line in text.lines() {
        if line.starts_with("diff --git ") {
            files.push(FileChange {
                old_path: None,
                new_path: None,
                binary: false,
                untracked: false,
                hunks: Vec::new(),
            });
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        if let Some(p) = line.strip_prefix("--- ") {
            file.old_path = (p != "/dev/null").then(|| unquote(p.strip_prefix("a/").unwrap_or(p)));
        } else if let Some(p) = line.strip_prefix("+++ ") {
            file.new_path = (p != "/dev/null").then(|| unquote(p.strip_prefix("b/").unwrap_or(p)));
        } else if let Some(p) = line.strip_prefix("rename from ") {
            file.old_path = Some(unquote(p));
        } else if let Some(p) = line.strip_prefix("rename to ") {
            file.new_path = Some(unquote(p));
        } else if let Some(rest) = line.strip_prefix("Binary files ") {
            file.binary = true;
            // `Binary files a/x and b/x differ`: take the paths from it.
            if let Some((a, b)) = rest.trim_end_matches(" differ").split_once(" and ") {
                file.old_path =
                    (a != "/dev/null").then(|| unquote(a.strip_prefix("a/").unwrap_or(a)));
                file.new_path =
                    (b != "/dev/null").then(|| unquote(b.strip_prefix("b/").unwrap_or(b)));
            }
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let mut parts = rest.split_whitespace();
            let range = |s: Option<&str>| -> (u32, u32) {
                let s = s.unwrap_or("0").trim_start_matches(['-', '+']);
                match s.split_once(',') {
                    Some((a, b)) => (a.parse().unwrap_or(0), b.parse().unwrap_or(0)),
                    None => (s.parse().unwrap_or(0), 1),
                }
            };
            let (os, oc) = range(parts.next());
            let (ns, nc) = range(parts.next());
            file.hunks.push(Hunk::new(os, oc, ns, nc, String::new()));
        } else if line.starts_with('+') || line.starts_with('-') || line.starts_with(' ') {
            if let Some(h) = file.hunks.last_mut().filter(|h| h.lines < MAX_HUNK_LINES) {
                h.text.push_str(line);
                h.text.push('\n');
                h.lines += 1;
            }
        }
    }
    files
}

/// The innermost definition containing each line in `lines`.
///
/// Definitions are taken smallest first (ties in file order), each claiming the
/// touched lines it contains that no smaller one claimed: O((lines + definitions)
/// log lines). Checking every definition for every line was quadratic, and a
/// new 200,000-line file took minutes (found by `evident-agent`'s fuzz test).
fn innermost_definitions(facts: &FileFacts, lines: &[u32]) -> BTreeSet<usize> {
    let mut unclaimed: BTreeSet<u32> = lines.iter().copied().collect();
    let mut order: Vec<usize> = (0..facts.definitions.len()).collect();
    order.sort_by_key(|&i| {
        let d = &facts.definitions[i];
        (d.end_line - d.start_line, i)
    });
    let mut found = BTreeSet::new();
    for i in order {
        if unclaimed.is_empty() {
            break;
        }
        let d = &facts.definitions[i];
        if d.start_line > d.end_line {
            continue;
        }
        let claimed: Vec<u32> = unclaimed
            .range(d.start_line..=d.end_line)
            .copied()
            .collect();
        if !claimed.is_empty() {
            found.insert(i);
            for line in claimed {
                unclaimed.remove(&line);
            }
        }
    }
    found
}

/// What a diff compares: git's arguments, the old and new revisions
/// (`None`: the working tree; `:`: the index), and how the report says it.
struct Compared {
    args: Vec<String>,
    old_rev: String,
    new_rev: Option<String>,
    said: String,
}

/// One changed file's two sides: texts and facts, as the index reads them.
struct Sides {
    old_text: Option<String>,
    new_text: Option<String>,
    old_facts: Option<FileFacts>,
    new_facts: Option<FileFacts>,
}

impl Index {
    /// Analyses a change against git: hunks, touched definitions, their impact.
    pub fn diff(&self, request: &DiffRequest) -> Result<DiffReport> {
        let root = self.root();
        git(root, &["rev-parse", "--git-dir"]).map_err(|_| {
            Error::InvalidArgument(format!("{} is not inside a git repository", root.display()))
        })?;
        let compared = self.compared(request)?;
        let arg_refs: Vec<&str> = compared.args.iter().map(String::as_str).collect();
        let text = String::from_utf8_lossy(&git(root, &arg_refs)?).into_owned();
        let mut changes = parse_diff(&text);
        if request.base.is_none() && !request.staged {
            // Untracked files are additions too.
            changes.extend(self.untracked_changes(request)?);
        }
        changes.retain(|change| self.may_show(change));
        let mut report = DiffReport {
            compared: compared.said.clone(),
            files: changes.len(),
            ..DiffReport::default()
        };
        let mut seen: HashSet<(Change, String)> = HashSet::new();
        for change in &changes {
            let display_path = change
                .new_path
                .clone()
                .or_else(|| change.old_path.clone())
                .unwrap_or_default();
            if change.binary {
                report.binary.push(display_path);
                continue;
            }
            report
                .hunks
                .extend(change.hunks.iter().map(|h| hunk_evidence(&display_path, h)));
            let sides = self.sides(change, &compared)?;
            self.touched_by(change, &sides, request.impact_depth, &mut seen, &mut report);
        }
        report.touched.sort_by(|a, b| {
            (a.change, &a.evidence.path, a.evidence.start_line).cmp(&(
                b.change,
                &b.evidence.path,
                b.evidence.start_line,
            ))
        });
        Ok(report)
    }

    /// The revisions a request compares, checked, and git's arguments for it.
    fn compared(&self, request: &DiffRequest) -> Result<Compared> {
        let root = self.root();
        let has_head = git(root, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).is_ok();
        let head = if has_head { "HEAD" } else { EMPTY_TREE };
        let mut args: Vec<String> = ["diff", "--no-color", "--no-ext-diff", "-M", "--unified=0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (old_rev, new_rev, said): (String, Option<String>, String) =
            match (&request.base, request.staged) {
                (Some(_), true) => {
                    return Err(Error::InvalidArgument(
                        "--base and --staged cannot be combined".into(),
                    ))
                }
                (Some(base), false) => {
                    validate_rev(base)?;
                    let commit = format!("{base}^{{commit}}");
                    let verify = [
                        "rev-parse",
                        "--verify",
                        "--quiet",
                        "--end-of-options",
                        &commit,
                    ];
                    git(root, &verify).map_err(|_| {
                        Error::InvalidArgument(format!("unknown revision {base:?}"))
                    })?;
                    if !has_head {
                        return Err(Error::InvalidArgument(
                            "the repository has no commits yet, so there is no HEAD to compare with"
                                .into(),
                        ));
                    }
                    args.extend(["--end-of-options".into(), base.clone(), "HEAD".into()]);
                    (base.clone(), Some("HEAD".into()), format!("{base}..HEAD"))
                }
                (None, true) => {
                    args.extend(["--cached".into(), "--end-of-options".into(), head.into()]);
                    (head.into(), Some(":".into()), "index vs HEAD".into())
                }
                (None, false) => {
                    args.extend(["--end-of-options".into(), head.into()]);
                    (head.into(), None, "working tree vs HEAD".into())
                }
            };
        args.push("--".into());
        for p in &request.paths {
            args.push(self.repo_rel(p)?);
        }
        Ok(Compared {
            args,
            old_rev,
            new_rev,
            said,
        })
    }

    /// The untracked files under the request's paths, each one hunk.
    fn untracked_changes(&self, request: &DiffRequest) -> Result<Vec<FileChange>> {
        let mut ls = vec!["ls-files", "--others", "--exclude-standard", "-z", "--"];
        let rels: Vec<String> = request
            .paths
            .iter()
            .map(|p| self.repo_rel(p))
            .collect::<Result<_>>()?;
        ls.extend(rels.iter().map(String::as_str));
        let listed = String::from_utf8_lossy(&git(self.root(), &ls)?).into_owned();
        Ok(listed
            .split('\0')
            .filter(|p| !p.is_empty())
            .filter_map(|path| self.untracked_change(path))
            .collect())
    }

    /// An untracked file as a change, when it may be read: through the
    /// sandbox (no symlink out or to a secret, no hard link), not over the
    /// size limit, not binary, in a language. Otherwise it is left out.
    fn untracked_change(&self, path: &str) -> Option<FileChange> {
        lang::for_path(path)?;
        let root = self.root();
        let file =
            crate::walk::sandbox::resolve_in_canonical(root, path, &self.config.secrets).ok()?;
        let bytes =
            crate::walk::sandbox::read_admitted(&file, path, self.config.max_file_size).ok()?;
        let lines = extract::count_lines(&String::from_utf8_lossy(&bytes));
        let text = format!("[new untracked file, {lines} lines]\n");
        Some(FileChange {
            old_path: None,
            new_path: Some(path.to_string()),
            binary: false,
            untracked: true,
            hunks: vec![Hunk::new(0, 0, 1, lines, text)],
        })
    }

    /// No secret file by either name, and no tracked file that is a hard
    /// link (it may be any file on the disk); untracked ones were checked
    /// when read.
    fn may_show(&self, change: &FileChange) -> bool {
        let secrets = &self.config.secrets;
        let names = [&change.old_path, &change.new_path];
        if names
            .iter()
            .any(|p| p.as_deref().is_some_and(|p| secrets.is_secret(p)))
        {
            return false;
        }
        let hard_link = |path: &String| {
            self.root()
                .join(path)
                .symlink_metadata()
                .is_ok_and(|m| m.is_file() && crate::walk::sandbox::extra_hard_links(&m).is_some())
        };
        change.untracked || !change.new_path.as_ref().is_some_and(hard_link)
    }

    /// A change's old and new texts, and their facts read as the index
    /// read them (see [`extract::Context::of_repository`]).
    fn sides(&self, change: &FileChange, compared: &Compared) -> Result<Sides> {
        let root = self.root();
        let old_text = change
            .old_path
            .as_ref()
            .and_then(|p| self.git_text(&compared.old_rev, p));
        let new_text = change
            .new_path
            .as_ref()
            .and_then(|p| match &compared.new_rev {
                Some(rev) => self.git_text(rev, p),
                None => std::fs::read(root.join(p))
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned()),
            });
        // Qualified names as the index has them: a Rust file's crate name
        // is the first segment of its stored module.
        let crate_name = change.new_path.as_deref().and_then(|p| {
            let (_, module) =
                crate::store::graph::file_lines_and_module(self.connection(), p).ok()??;
            lang::crate_name_of_module(lang::for_path(p)?, &module).map(str::to_string)
        });
        let fallbacks = crate::store::meta(self.connection(), "fallback_languages")?;
        let facts = |path: &Option<String>, text: &Option<String>| -> Option<FileFacts> {
            let path = path.as_ref()?;
            let spec = lang::for_path(path)?;
            let context =
                extract::Context::of_repository(spec, crate_name.as_deref(), fallbacks.as_deref());
            Some(extract::extract_in(spec, path, text.as_ref()?, &context))
        };
        Ok(Sides {
            old_facts: facts(&change.old_path, &old_text),
            new_facts: facts(&change.new_path, &new_text),
            old_text,
            new_text,
        })
    }

    /// The definitions a change touched: added or modified where lines were
    /// added, deleted or modified where lines were removed; each once.
    fn touched_by(
        &self,
        change: &FileChange,
        sides: &Sides,
        depth: u32,
        seen: &mut HashSet<(Change, String)>,
        report: &mut DiffReport,
    ) {
        let names = |facts: &Option<FileFacts>| -> HashSet<String> {
            (facts.iter())
                .flat_map(|f| f.definitions.iter().map(|d| d.qualified_name.clone()))
                .collect()
        };
        let (old_names, new_names) = (names(&sides.old_facts), names(&sides.new_facts));
        let added_lines: Vec<u32> = change.hunks.iter().flat_map(Hunk::new_lines).collect();
        let removed_lines: Vec<u32> = change.hunks.iter().flat_map(Hunk::old_lines).collect();
        if let (Some(facts), Some(path), Some(text)) =
            (&sides.new_facts, &change.new_path, &sides.new_text)
        {
            for i in innermost_definitions(facts, &added_lines) {
                let d = &facts.definitions[i];
                let status = if old_names.contains(&d.qualified_name) {
                    Change::Modified
                } else {
                    Change::Added
                };
                if seen.insert((status, d.qualified_name.clone())) {
                    report
                        .touched
                        .push(self.touched(status, path, text, d, depth));
                }
            }
        }
        let (Some(facts), Some(path), Some(text)) =
            (&sides.old_facts, &change.old_path, &sides.old_text)
        else {
            return;
        };
        for i in innermost_definitions(facts, &removed_lines) {
            let d = &facts.definitions[i];
            let status = if new_names.contains(&d.qualified_name) {
                Change::Modified
            } else {
                Change::Deleted
            };
            if !seen.insert((status, d.qualified_name.clone())) {
                continue;
            }
            // A modified definition is shown as it is now.
            let now = match (status, &sides.new_facts, &sides.new_text, &change.new_path) {
                (Change::Modified, Some(nf), Some(nt), Some(np)) => nf
                    .definitions
                    .iter()
                    .find(|n| n.qualified_name == d.qualified_name)
                    .map(|nd| (np, nt, nd)),
                _ => None,
            };
            let (shown, shown_text, shown_def) = match now {
                Some(now) => now,
                None if status == Change::Modified => {
                    (change.new_path.as_ref().unwrap_or(path), text, d)
                }
                None => (path, text, d),
            };
            report
                .touched
                .push(self.touched(status, shown, shown_text, shown_def, depth));
        }
    }

    fn git_text(&self, rev: &str, path: &str) -> Option<String> {
        let spec = if rev == ":" {
            format!(":{path}")
        } else {
            format!("{rev}:{path}")
        };
        git(
            self.root(),
            &["show", "--no-color", "--end-of-options", &spec],
        )
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    fn touched(
        &self,
        change: Change,
        path: &str,
        text: &str,
        d: &extract::Definition,
        depth: u32,
    ) -> Touched {
        let lines: Vec<&str> = text.lines().collect();
        let from = (d.start_line as usize).saturating_sub(1).min(lines.len());
        let to = (d.end_line as usize).min(lines.len()).max(from);
        let body = &lines[from..to];
        let snippet = if body.len() > 30 {
            format!(
                "{}\n[... {} lines omitted ...]",
                body[..30].join("\n"),
                body.len() - 30
            )
        } else {
            body.join("\n")
        };
        let mut evidence = Evidence::new(path, d.start_line, d.end_line, d.kind, &d.name, snippet);
        evidence.qualified_name = Some(d.qualified_name.clone());
        evidence.reason = Some(match change {
            Change::Added => "added".to_string(),
            Change::Modified => "modified".to_string(),
            Change::Deleted => "deleted (lines of the old version)".to_string(),
        });
        let impact = match change {
            Change::Added => None,
            _ => self
                .impact(&d.qualified_name, None, depth.clamp(1, 6), 200)
                .ok(),
        };
        let Some(impact) = impact else {
            return Touched {
                change,
                evidence,
                direct_callers: 0,
                affected: 0,
                affected_files: 0,
                affected_definitions: Vec::new(),
                possible_callers: 0,
            };
        };
        Touched {
            change,
            evidence,
            direct_callers: impact.nodes.iter().filter(|n| n.depth == Some(1)).count(),
            affected: impact.nodes.len() + impact.omitted,
            affected_files: impact.files,
            affected_definitions: impact.nodes.into_iter().take(MAX_LISTED_AFFECTED).collect(),
            possible_callers: impact.possible.total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_validated() {
        for good in [
            "HEAD",
            "HEAD~2",
            "main",
            "v1.2.3",
            "feature/x",
            "a1b2c3d",
            "HEAD^",
        ] {
            assert!(validate_rev(good).is_ok(), "{good}");
        }
        for bad in ["--output=/tmp/x", "-p", "a..b", "HEAD;rm", "x y", ""] {
            assert!(validate_rev(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unified_diffs_parse_with_renames_and_binaries() {
        let text = "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n--- a/a.py\n+++ b/b.py\n@@ -3,0 +4,2 @@ def f():\n+x\n+y\n@@ -10 +12 @@\n-old\n+new\ndiff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\ndiff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
        let files = parse_diff(text);
        assert_eq!(files.len(), 3);
        assert_eq!(
            (files[0].old_path.as_deref(), files[0].new_path.as_deref()),
            (Some("a.py"), Some("b.py"))
        );
        assert_eq!(
            files[0]
                .hunks
                .iter()
                .map(|h| (h.old_start, h.old_count, h.new_start, h.new_count))
                .collect::<Vec<_>>(),
            vec![(3, 0, 4, 2), (10, 1, 12, 1)]
        );
        assert!(files[1].binary);
        assert_eq!(
            (files[2].old_path.as_deref(), files[2].new_path.as_deref()),
            (Some("gone.py"), None)
        );
    }
}
