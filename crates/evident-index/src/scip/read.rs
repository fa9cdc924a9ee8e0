//! Reading an `index.scip` file (the `scip` crate's protobuf types): each
//! document's occurrences, as SCIP wrote them, and the names symbols give.

use std::path::Path;

use protobuf::Message;
use scip::types::{descriptor::Suffix, PositionEncoding, SymbolRole};

use crate::error::{Error, Result};
use crate::store::scip::{Document, Occurrence};

/// The documents of the SCIP index at `path`.
pub(crate) fn read_index(path: &Path) -> Result<Vec<Document>> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let index = scip::types::Index::parse_from_bytes(&bytes).map_err(|e| Error::Scip {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(index.documents.into_iter().map(document).collect())
}

fn document(doc: scip::types::Document) -> Document {
    let utf16 = !matches!(
        doc.position_encoding.enum_value(),
        Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart)
    );
    let path = doc.relative_path.replace('\\', "/");
    let occurrences = doc
        .occurrences
        .iter()
        .filter_map(|o| {
            // [line, start, end] on one line; four numbers span lines.
            let [line, start, end] = o.range[..] else {
                return None;
            };
            let (line, start, end) = (
                u32::try_from(line).ok()?,
                u32::try_from(start).ok()?,
                u32::try_from(end).ok()?,
            );
            if o.symbol.is_empty() || end <= start {
                return None;
            }
            let symbol = if scip::symbol::is_local_symbol(&o.symbol) {
                format!("{path}\0{}", o.symbol)
            } else {
                o.symbol.clone()
            };
            Some(Occurrence {
                line,
                start,
                end,
                symbol,
                definition: o.symbol_roles & SymbolRole::Definition as i32 != 0,
            })
        })
        .collect();
    Document {
        path,
        utf16,
        occurrences,
    }
}

/// What a global symbol's last descriptor names; `None` for locals and for
/// names no identifier spells (`<constructor>`, a module's path).
pub(crate) fn symbol_name(symbol: &str) -> Option<String> {
    if symbol.contains('\0') {
        return None;
    }
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    let last = parsed.descriptors.last()?;
    let suffix = last.suffix.enum_value().ok()?;
    let named = matches!(
        suffix,
        Suffix::Type | Suffix::Term | Suffix::Method | Suffix::Parameter | Suffix::TypeParameter
    );
    let identifier = !last.name.is_empty()
        && last
            .name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    (named && identifier).then(|| last.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_last_descriptor() {
        let sym = "scip-typescript npm fixture 1.0.0 src/`shapes.ts`/Square#area().";
        assert_eq!(symbol_name(sym), Some("area".into()));
        let class = "scip-typescript npm fixture 1.0.0 src/`shapes.ts`/Square#";
        assert_eq!(symbol_name(class), Some("Square".into()));
        let ctor = "scip-typescript npm fixture 1.0.0 src/`shapes.ts`/Square#`<constructor>`().";
        assert_eq!(symbol_name(ctor), None);
        let module = "scip-typescript npm fixture 1.0.0 src/`shapes.ts`/";
        assert_eq!(symbol_name(module), None);
        assert_eq!(symbol_name("src/a.ts\0local 3"), None);
    }
}
