//! Prints an index as canonical text (run by `bench/crash.py`): every row
//! with row ids replaced by what they point at, sorted, so an index resumed
//! after a kill can be compared with a clean build by comparing two files.
//! Exits 2, naming the check, when the index is inconsistent (a row of no
//! file, a file whose counts disagree with its rows, chunks missing from the
//! full-text index) or SQLite's own integrity check fails.
//!
//! ```text
//! index_dump REPO > dump.txt
//! ```

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(repo) = std::env::args_os().nth(1) else {
        eprintln!("usage: index_dump REPO");
        return ExitCode::from(2);
    };
    let db = evident_index::store::index_path(std::path::Path::new(&repo));
    let dump = evident_index::Index::open(std::path::Path::new(&repo)).and_then(|index| {
        index.check_integrity()?;
        index.canonical_dump()
    });
    match dump {
        Ok(rows) => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for row in rows {
                if writeln!(out, "{row}").is_err() {
                    return ExitCode::from(2);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("index_dump: {}: {e}", db.display());
            ExitCode::from(2)
        }
    }
}
