//! "No language is named outside `lang/`": per-language knowledge is data
//! (`LanguageSpec` rows, `.scm` queries, the import rules in `lang/imports.rs`),
//! so adding a language never means editing the indexer, the call graph or
//! search. This test reads the crate's sources outside `src/lang/` (code only:
//! comments and `#[cfg(test)]` modules are skipped) and fails on a language's
//! name, one of its file conventions or one of its receiver keywords.

use std::path::{Path, PathBuf};

/// What only a language's own row may know.
const LANGUAGE_WORDS: &[&str] = &[
    "python",
    "rust",
    "javascript",
    "typescript",
    "tsx",
    "java",
    "golang",
];
const LANGUAGE_LITERALS: &[&str] = &[
    "\"go\"",
    "__init__",
    "mod.rs",
    "lib.rs",
    "main.rs",
    "index.ts",
    "index.js",
    "go.mod",
    ".jsx",
    ".mjs",
    ".cjs",
    "\"self\"",
    "\"this\"",
    "\"cls\"",
    "\"Self\"",
    "\"super\"",
    "\"crate\"",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().unwrap() != "lang" {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file: no comment lines, no trailing test module.
fn code(text: &str) -> Vec<(usize, &str)> {
    let end = text.find("#[cfg(test)]").unwrap_or(text.len());
    text[..end]
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.split("//").next().unwrap_or("")))
        .filter(|(_, line)| !line.trim().is_empty())
        .collect()
}

fn is_word_at(line: &str, at: usize, len: usize) -> bool {
    let before = line[..at].chars().next_back();
    let after = line[at + len..].chars().next();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !word(before) && !word(after)
}

#[test]
fn no_language_is_named_outside_lang() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() > 10, "found the sources: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in code(&text) {
            let lower = line.to_lowercase();
            let words = LANGUAGE_WORDS.iter().filter(|w| {
                lower
                    .match_indices(*w)
                    .any(|(at, _)| is_word_at(&lower, at, w.len()))
            });
            let literals = LANGUAGE_LITERALS.iter().filter(|l| line.contains(*l));
            for hit in words.chain(literals) {
                let rel = file.strip_prefix(&src).unwrap().display();
                found.push(format!("src/{rel}:{number}: {hit} in `{}`", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "language knowledge outside src/lang/ (move it into a LanguageSpec row):\n{}",
        found.join("\n")
    );
}
