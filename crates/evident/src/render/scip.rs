//! What came from a compiler's index (SCIP), in an index run's summary and
//! in `status`.

use std::fmt::Write;

use evident_index::printable::printable;
use evident_index::{ScipStatus, Summary};

/// The summary's lines about SCIP: the file imported, documents dropped as
/// stale, a SCIP file gone.
pub fn summary_lines(s: &Summary, out: &mut String) {
    if let Some(path) = &s.scip_imported {
        let _ = writeln!(
            out,
            "  merged the compiler's index {}: where it has an answer, it decides `def` and call edges (confidence `precise`)",
            printable(&path.to_string_lossy())
        );
    }
    for (path, why) in s.scip_stale.iter().take(10) {
        let _ = writeln!(
            out,
            "  SCIP data dropped for {}: the file changed since the SCIP index was written ({})",
            printable(path),
            printable(why)
        );
    }
    if s.scip_stale.len() > 10 {
        let _ = writeln!(
            out,
            "  … and SCIP data dropped for {} more files (`evident status` counts them)",
            s.scip_stale.len() - 10
        );
    }
    if let Some(why) = &s.scip_unreadable {
        let _ = writeln!(out, "  warning: no SCIP data this run: {}", printable(why));
    }
    if let Some(gone) = &s.scip_dropped {
        let _ = writeln!(
            out,
            "  the SCIP index {} is gone: its data was dropped (name another with `--scip FILE`)",
            printable(gone)
        );
    }
}

/// `status`'s SCIP line, and the stale documents it lists.
pub fn status_lines(scip: &ScipStatus, out: &mut String) {
    let _ = writeln!(
        out,
        "scip:       {}: {} documents match their files, {} stale, {} for files not indexed; {} call edges precise",
        printable(&scip.source),
        scip.fresh,
        scip.stale,
        scip.not_indexed,
        scip.precise_edges
    );
    for (path, why) in &scip.stale_examples {
        let _ = writeln!(out, "  stale {}: {}", printable(path), printable(why));
    }
    if scip.stale > 0 {
        out.push_str("  run the SCIP indexer again, then `evident index`, to use them again\n");
    }
}
