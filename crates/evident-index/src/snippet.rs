//! Real text for Evidence: lines read from the file at query time, bounded.

use std::collections::HashMap;
use std::path::Path;

use crate::config::SecretPolicy;
use crate::error::{Error, Result};
use crate::sandbox;

/// Reads files once per query and cuts line ranges out of them.
pub struct SnippetReader<'a> {
    root: &'a Path,
    secrets: &'a SecretPolicy,
    cache: HashMap<String, std::result::Result<Vec<String>, String>>,
}

/// A long range is cut to its head and tail around a marker line that says so.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub head: usize,
    pub tail: usize,
}

impl Budget {
    /// Enough to read a definition; longer ones point at `evident read`.
    pub const DEFINITION: Budget = Budget { head: 40, tail: 10 };
    /// An outline entry: first and last line.
    pub const OUTLINE: Budget = Budget { head: 1, tail: 1 };
    pub const UNBOUNDED: Budget = Budget {
        head: usize::MAX / 2,
        tail: 0,
    };
}

impl<'a> SnippetReader<'a> {
    pub fn new(root: &'a Path, secrets: &'a SecretPolicy) -> SnippetReader<'a> {
        SnippetReader {
            root,
            secrets,
            cache: HashMap::new(),
        }
    }

    /// All lines of a repository file, through the sandbox.
    pub fn lines(&mut self, rel: &str) -> Result<&[String]> {
        let (root, secrets) = (self.root, self.secrets);
        let entry = self.cache.entry(rel.to_string()).or_insert_with(|| {
            let file = sandbox::resolve(root, rel, secrets).map_err(|e| e.to_string())?;
            let bytes = std::fs::read(&file.abs).map_err(|e| format!("{rel}: {e}"))?;
            let text = String::from_utf8_lossy(&bytes);
            Ok(text
                .split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
                .collect())
        });
        match entry {
            Ok(lines) => {
                // A trailing newline does not start a line.
                let n = if lines.last().is_some_and(String::is_empty) {
                    lines.len() - 1
                } else {
                    lines.len()
                };
                Ok(&lines[..n])
            }
            Err(message) => Err(Error::Refused(message.clone())),
        }
    }

    /// Lines `start..=end` (1-based), cut to `budget` with a marker.
    pub fn snippet(&mut self, rel: &str, start: u32, end: u32, budget: Budget) -> Result<String> {
        let lines = self.lines(rel)?;
        let from = (start.max(1) as usize - 1).min(lines.len());
        let to = (end as usize).min(lines.len()).max(from);
        let range = &lines[from..to];
        if range.len() <= budget.head + budget.tail + 1 {
            return Ok(range.join("\n"));
        }
        let omitted = range.len() - budget.head - budget.tail;
        let mut out: Vec<&str> = range[..budget.head].iter().map(String::as_str).collect();
        let marker = format!(
            "[... {omitted} lines omitted: evident read {rel} {} {} ...]",
            from + budget.head + 1,
            to - budget.tail
        );
        out.push(&marker);
        out.extend(
            range[range.len() - budget.tail..]
                .iter()
                .map(String::as_str),
        );
        Ok(out.join("\n"))
    }
}
