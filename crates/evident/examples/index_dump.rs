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
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let dump = rusqlite::Connection::open_with_flags(&db, flags)
        .map_err(evident_index::Error::from)
        .and_then(|conn| {
            let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
            if integrity != "ok" {
                return Err(evident_index::Error::InvalidArgument(format!(
                    "PRAGMA integrity_check: {integrity}"
                )));
            }
            evident_index::store::canonical_dump(&conn)
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
