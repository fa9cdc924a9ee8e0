//! Real text for Evidence: lines read from the file at query time, bounded.

use std::collections::HashMap;
use std::path::Path;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::walk::sandbox;
pub use crate::walk::sandbox::looks_binary;

/// A file's text and where each of its lines starts.
struct Lines {
    text: String,
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: String) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        // A trailing newline does not start a line.
        if starts.len() > 1 && *starts.last().unwrap_or(&0) == text.len() {
            starts.pop();
        }
        if text.is_empty() {
            starts.clear();
        }
        Lines { text, starts }
    }

    fn len(&self) -> usize {
        self.starts.len()
    }

    fn line(&self, i: usize) -> &str {
        let end = self.starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        let line = &self.text[self.starts[i]..end.max(self.starts[i])];
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }
}

/// Reads files once per query and cuts line ranges out of them.
/// `root` must be canonical (as `Index::root` is).
pub struct SnippetReader<'a> {
    root: &'a Path,
    config: &'a Config,
    cache: HashMap<String, std::result::Result<Lines, String>>,
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
    pub fn new(root: &'a Path, config: &'a Config) -> SnippetReader<'a> {
        SnippetReader {
            root,
            config,
            cache: HashMap::new(),
        }
    }

    fn load(&mut self, rel: &str) -> Result<&Lines> {
        let (root, secrets, docs_dirs) = (self.root, &self.config.secrets, &self.config.docs_dirs);
        let max_file_size = self.config.max_file_size;
        let entry = self.cache.entry(rel.to_string()).or_insert_with(|| {
            let file = sandbox::resolve_with_docs(root, docs_dirs, rel, secrets)
                .map_err(|e| e.to_string())?;
            let bytes = sandbox::read_admitted(&file, rel, max_file_size)?;
            Ok(Lines::new(String::from_utf8_lossy(&bytes).into_owned()))
        });
        entry
            .as_ref()
            .map_err(|message| Error::Refused(message.clone()))
    }

    /// How many lines a repository file has (through the sandbox).
    pub fn line_count(&mut self, rel: &str) -> Result<usize> {
        Ok(self.load(rel)?.len())
    }

    /// The whole text of a repository file (through the sandbox).
    pub fn text(&mut self, rel: &str) -> Result<&str> {
        Ok(&self.load(rel)?.text)
    }

    /// One line (1-based) of a repository file.
    pub fn line(&mut self, rel: &str, line: u32) -> Result<Option<String>> {
        let lines = self.load(rel)?;
        let i = (line as usize).checked_sub(1);
        Ok(i.filter(|i| *i < lines.len())
            .map(|i| lines.line(i).to_string()))
    }

    /// The snippet of an Evidence record: [`Reader::snippet`], or, when the
    /// file cannot be read now, why (`[unavailable: …]`), never an empty
    /// text that would pass for the file's own.
    pub fn evidence(&mut self, rel: &str, start: u32, end: u32, budget: Budget) -> String {
        self.snippet(rel, start, end, budget)
            .unwrap_or_else(|e| format!("[unavailable: {e}]"))
    }

    /// Lines `start..=end` (1-based), cut to `budget` with a marker.
    pub fn snippet(&mut self, rel: &str, start: u32, end: u32, budget: Budget) -> Result<String> {
        let lines = self.load(rel)?;
        let from = (start.max(1) as usize - 1).min(lines.len());
        let to = (end as usize).min(lines.len()).max(from);
        let count = to - from;
        let join =
            |range: std::ops::Range<usize>| -> Vec<&str> { range.map(|i| lines.line(i)).collect() };
        if count <= budget.head + budget.tail + 1 {
            return Ok(join(from..to).join("\n"));
        }
        let omitted = count - budget.head - budget.tail;
        let mut out = join(from..from + budget.head);
        let marker = format!(
            "[... {omitted} lines omitted: evident read {rel} {} {} ...]",
            from + budget.head + 1,
            to - budget.tail
        );
        out.push(&marker);
        out.extend(join(to - budget.tail..to));
        Ok(out.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_without_terminators() {
        for (text, expected) in [
            ("a\nb\n", vec!["a", "b"]),
            ("a\r\nb", vec!["a", "b"]),
            ("", vec![]),
            ("\n", vec![""]),
            ("a\n\n", vec!["a", ""]),
        ] {
            let lines = Lines::new(text.to_string());
            let got: Vec<&str> = (0..lines.len()).map(|i| lines.line(i)).collect();
            assert_eq!(got, expected, "{text:?}");
        }
    }
}
