//! Whether a SCIP document still describes its file, and where its
//! occurrences fall in the file as it is now.
//!
//! SCIP records no hash of the text it indexed, so a document is checked
//! against the file itself: every occurrence must lie inside the file, and
//! every definition must still spell the name its symbol gives. An edit that
//! moves or renames anything SCIP recorded fails the check; the verdict is a
//! function of the document and the file's text alone, so an incremental run
//! and a rebuild reach the same one.

use super::read::symbol_name;
use crate::store::scip::{Document, Occurrence, Placed};

/// Each occurrence of `doc` placed in `text` (in the document's order), or
/// why the document no longer describes it.
pub(crate) fn place(doc: &Document, text: &str) -> Result<Vec<Placed>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(doc.occurrences.len());
    for o in &doc.occurrences {
        let Some(line) = lines.get(o.line as usize) else {
            return Err(format!(
                "SCIP has an occurrence on line {} and the file has {} lines",
                o.line + 1,
                lines.len()
            ));
        };
        let Some((start_col, end_col, name)) = columns(line, o, doc.utf16) else {
            return Err(format!(
                "line {}: SCIP's occurrence runs past the line's end",
                o.line + 1
            ));
        };
        if o.definition {
            if let Some(expected) = symbol_name(&o.symbol) {
                if expected != name {
                    return Err(format!(
                        "line {}: SCIP defines `{expected}` where the file now has `{}`",
                        o.line + 1,
                        name.chars().take(40).collect::<String>()
                    ));
                }
            }
        }
        out.push(Placed {
            line: o.line + 1,
            start_col,
            end_col,
            name,
        });
    }
    Ok(out)
}

/// The occurrence's character columns on `line` and its text; `None` when
/// an offset falls past the line or inside a character.
fn columns(line: &str, o: &Occurrence, utf16: bool) -> Option<(u32, u32, String)> {
    let mut units = 0u32;
    let (mut start, mut end) = (None, None);
    for (i, c) in line.chars().enumerate() {
        if units == o.start {
            start = Some(i);
        }
        if units == o.end {
            end = Some(i);
            break;
        }
        units += if utf16 {
            c.len_utf16() as u32
        } else {
            c.len_utf8() as u32
        };
    }
    let count = line.chars().count();
    if end.is_none() && units == o.end {
        end = Some(count);
    }
    let (start, end) = (start?, end?);
    let name: String = line.chars().skip(start).take(end - start).collect();
    Some((start as u32, end as u32, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(occurrences: Vec<Occurrence>) -> Document {
        Document {
            path: "a.ts".into(),
            utf16: true,
            occurrences,
        }
    }

    fn occ(line: u32, start: u32, end: u32, symbol: &str, definition: bool) -> Occurrence {
        Occurrence {
            line,
            start,
            end,
            symbol: symbol.into(),
            definition,
        }
    }

    const AREA: &str = "scip-typescript npm p 1.0.0 `a.ts`/area().";

    #[test]
    fn a_matching_file_places_every_occurrence_in_characters() {
        // "é" is one UTF-16 unit, "𝑥" two: columns count characters.
        let text = "const é𝑥 = 1;\nfunction area() {}\n";
        let d = doc(vec![
            occ(0, 6, 9, "a.ts\0local 1", true),
            occ(1, 9, 13, AREA, true),
        ]);
        let placed = place(&d, text).unwrap();
        assert_eq!((placed[0].start_col, placed[0].end_col), (6, 8));
        assert_eq!(placed[0].name, "é𝑥");
        assert_eq!(placed[1].line, 2);
        assert_eq!(placed[1].name, "area");
    }

    #[test]
    fn a_moved_definition_or_a_short_file_makes_the_document_stale() {
        let d = doc(vec![occ(1, 9, 13, AREA, true)]);
        let moved = "function area() {}\nfunction size() {}\n";
        let why = place(&d, moved).unwrap_err();
        assert!(why.contains("SCIP defines `area`"), "{why}");
        let short = place(&d, "function area() {}\n").unwrap_err();
        assert!(short.contains("the file has 1 lines"), "{short}");
        let past = doc(vec![occ(0, 9, 40, AREA, false)]);
        assert!(place(&past, "function area() {}").is_err());
    }
}
