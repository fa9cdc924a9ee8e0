//! The documents knowledge base (seed 001): `sources` lists documents by ID
//! and path, never their content; `source` reads one by ID, a section or a
//! line range at a time, within the same limits as `read`.

use crate::error::{Error, Result};
use crate::evidence::{Evidence, Kind};
use crate::lang::docs::{doc_id, DOC_FORMATS};
use crate::query::{Index, MAX_READ_LINES};
use crate::store::chunks;

/// The longest `name_contains` filter accepted, in characters.
pub const MAX_NAME_FILTER_CHARS: usize = 80;

/// Which part of a document to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourcePart {
    /// From the top, up to [`MAX_READ_LINES`] lines.
    Start,
    /// The section with this heading (case-insensitive), up to the next heading.
    Section(String),
    /// Lines `start..=end`.
    Lines(u32, u32),
}

impl Index {
    /// Documents whose path or title contains `name_contains` (case-insensitive;
    /// empty: all), as Evidence with `doc_id`, the title as `name`, the whole
    /// file's line range, and an empty snippet: listing never shows content.
    pub fn sources(&self, name_contains: &str) -> Result<Vec<Evidence>> {
        if name_contains.chars().count() > MAX_NAME_FILTER_CHARS {
            return Err(Error::InvalidArgument(format!(
                "name_contains is {} characters long; at most {MAX_NAME_FILTER_CHARS}",
                name_contains.chars().count()
            )));
        }
        let needle = name_contains.trim().to_lowercase();
        let formats: Vec<&str> = DOC_FORMATS.iter().map(|f| f.name).collect();
        let rows = chunks::documents(self.connection(), &formats)?;
        let mut out = Vec::new();
        for (path, lines, title) in rows {
            let title =
                title.unwrap_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_string());
            if !needle.is_empty()
                && !path.to_lowercase().contains(&needle)
                && !title.to_lowercase().contains(&needle)
            {
                continue;
            }
            let mut ev = Evidence::new(
                path.clone(),
                1,
                lines.max(1),
                Kind::Doc,
                title,
                String::new(),
            );
            ev.doc_id = Some(doc_id(&path));
            out.push(ev);
        }
        Ok(out)
    }

    /// Part of the document `id`, read from the file (sandboxed like `read`).
    pub fn source(&self, id: &str, part: &SourcePart) -> Result<Evidence> {
        let id = id.trim();
        let listed = self.sources("")?;
        let Some(doc) = listed.iter().find(|d| d.doc_id.as_deref() == Some(id)) else {
            return Err(Error::InvalidArgument(format!(
                "no document has the ID {id:?}: `evident sources` lists the IDs ({} documents indexed)",
                listed.len()
            )));
        };
        let (start, end, name) = match part {
            SourcePart::Start => (1, doc.end_line.min(MAX_READ_LINES), doc.name.clone()),
            SourcePart::Lines(a, b) => (*a, *b, doc.name.clone()),
            SourcePart::Section(title) => {
                let sections = chunks::sections(self.connection(), &doc.path)?;
                let wanted = title.trim().to_lowercase();
                match sections
                    .iter()
                    .find(|(name, _, _)| name.to_lowercase() == wanted)
                {
                    Some((name, start, end)) => {
                        (*start, (*end).min(start + MAX_READ_LINES - 1), name.clone())
                    }
                    None => {
                        let titles: Vec<&str> = sections
                            .iter()
                            .map(|(n, _, _)| n.as_str())
                            .take(30)
                            .collect();
                        return Err(Error::InvalidArgument(format!(
                            "{} ({id}) has no section {title:?}; its sections: {}",
                            doc.path,
                            titles.join(" | ")
                        )));
                    }
                }
            }
        };
        let mut ev = self.read(&doc.path, i64::from(start), i64::from(end))?;
        ev.kind = Kind::Doc;
        ev.name = name;
        ev.doc_id = Some(id.to_string());
        Ok(ev)
    }
}
