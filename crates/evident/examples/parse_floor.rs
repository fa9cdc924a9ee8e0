//! The parse floor (run by `bench/kernel.py` and `bench/index.py`): reads and
//! parses with tree-sitter every code file an index holds, on all cores, and
//! does nothing else. What an indexing run costs above this is the work of
//! extraction, resolution and storage.
//!
//! ```text
//! parse_floor REPO        # the files of REPO's index (`evident index` first)
//! ```
//!
//! Prints `files`, `bytes` and `seconds` as one line of JSON.

use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;

fn main() -> ExitCode {
    let Some(repo) = std::env::args_os().nth(1) else {
        eprintln!("usage: parse_floor REPO");
        return ExitCode::from(2);
    };
    let repo = std::path::PathBuf::from(repo);
    let index = match evident_index::Index::open(&repo) {
        Ok(index) => index,
        Err(e) => {
            eprintln!("parse_floor: {e}");
            return ExitCode::from(2);
        }
    };
    let files: Vec<(String, &'static evident_index::lang::LanguageSpec)> = match index.files() {
        Ok(files) => files
            .into_iter()
            .filter_map(|(path, lang)| evident_index::lang::by_name(&lang).map(|spec| (path, spec)))
            .collect(),
        Err(e) => {
            eprintln!("parse_floor: {e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let bytes: usize = files
        .par_iter()
        .map_init(tree_sitter::Parser::new, |parser, (path, spec)| {
            let Ok(source) = std::fs::read(repo.join(path)) else {
                return 0;
            };
            if parser.set_language(&spec.grammar()).is_ok() {
                let tree = parser.parse(&source, None);
                std::hint::black_box(tree);
            }
            source.len()
        })
        .sum();
    println!(
        "{{\"files\": {}, \"bytes\": {bytes}, \"seconds\": {:.3}}}",
        files.len(),
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
