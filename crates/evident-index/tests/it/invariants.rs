//! Layout invariants of `evident-index`, checked by reading its sources (code
//! only: comments and `#[cfg(test)]` modules are skipped):
//! - "No language is named outside `lang/`": per-language knowledge is data
//!   (`LanguageSpec` rows, `.scm` queries, the import rules in
//!   `lang/imports/`), so adding a language never means editing the
//!   indexer, the call graph or search.
//! - "SQL lives in `store/`": every statement is there, behind typed rows.
//! - "No import cycle inside a crate": no two files of any workspace crate
//!   import each other, directly or around a loop ([`module_graph`]).
//! - "No source file over 800 lines": a reader can hold a file in mind.

use std::path::{Path, PathBuf};

mod module_graph;

/// What only a language's own row may know.
const LANGUAGE_WORDS: &[&str] = &[
    "python",
    "rust",
    "javascript",
    "typescript",
    "tsx",
    "java",
    "golang",
    "cpp",
    "csharp",
    "ruby",
    "php",
    "kotlin",
    "swift",
    "scala",
    "bash",
    "lua",
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
    "\"c\"",
    "\"$this\"",
    "\"parent\"",
    "compile_commands.json",
    "composer.json",
    "require_relative",
    "\"new\"",
    "\"new \"",
    "\"::\"",
    "\"?.\"",
];

/// What the agent may not spell out either: syntax and file conventions.
const AGENT_LITERALS: &[&str] = &[
    "__init__", "mod.rs", "lib.rs", "main.rs", "index.ts", "index.js", "go.mod", ".jsx", ".mjs",
    ".cjs", "\"new \"", "\"::\"", "\"?.\"",
];

/// Each line of `file`'s code that holds one of `literals`.
fn literals_in(file: &Path, root: &Path, literals: &[&str]) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let rel = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    code(&text)
        .into_iter()
        .flat_map(|(number, line)| {
            let rel = &rel;
            literals
                .iter()
                .filter(move |l| line.contains(*l))
                .map(move |l| format!("{rel}:{number}: {l} in `{}`", line.trim()))
        })
        .collect()
}

/// The `.rs` files under `dir`, except those under a folder named `skip`.
fn sources(dir: &Path, skip: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().unwrap() != skip {
                sources(&path, skip, out);
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
    sources(&src, "lang", &mut files);
    assert!(files.len() > 10, "found the sources: {files:?}");
    // The agent reads names and paths too: what it knows of their syntax and
    // conventions comes from `lang` (its English words, "this" or "crate",
    // are not checked).
    let agent = src.join("../../evident-agent/src");
    let mut agent_files = Vec::new();
    sources(&agent, "", &mut agent_files);
    let mut found = agent_files
        .iter()
        .flat_map(|file| literals_in(file, &agent, AGENT_LITERALS))
        .collect::<Vec<_>>();
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
                let rel = file.strip_prefix(&src).unwrap_or(file).display();
                found.push(format!("{rel}:{number}: {hit} in `{}`", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "language knowledge outside src/lang/ (move it into a LanguageSpec row):\n{}",
        found.join("\n")
    );
}

/// Statement keywords as SQL text begins them (inside a string literal).
const SQL_STARTS: &[&str] = &[
    "\"SELECT ",
    "\"INSERT ",
    "\"UPDATE ",
    "\"DELETE ",
    "\"CREATE ",
    "\"WITH ",
    "\"PRAGMA ",
    "\"DROP ",
];

#[test]
fn sql_lives_in_store() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, "store", &mut files);
    assert!(files.len() > 10, "found the sources: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let code = code(&text);
        for (at, (number, line)) in code.iter().enumerate() {
            // A statement may start on the line after `prepare(` or `format!(`.
            let statement = SQL_STARTS.iter().any(|k| line.contains(k))
                || (line.trim_end().ends_with('(')
                    && code.get(at + 1).is_some_and(|(_, next)| {
                        SQL_STARTS.iter().any(|k| next.trim_start().starts_with(k))
                    }));
            if statement {
                let rel = file.strip_prefix(&src).unwrap().display();
                found.push(format!("src/{rel}:{number}: `{}`", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "SQL outside src/store/ (move it behind a typed function there):\n{}",
        found.join("\n")
    );
}

/// The index knows nothing of models: their settings (`[model]`, `[embed]`,
/// `[agent]`, a provider, an API key) are read by the tools around it.
#[test]
fn the_index_holds_no_model_settings() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, "", &mut files);
    let words = [
        "api_key",
        "ModelSettings",
        "AgentSettings",
        "Provider",
        "EVIDENT_MODEL",
    ];
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in code(&text) {
            for word in words {
                if line.contains(word) {
                    let rel = file.strip_prefix(&src).unwrap().display();
                    found.push(format!("src/{rel}:{number}: `{}`", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "model settings in evident-index (they belong to the binary's settings.rs):\n{}",
        found.join("\n")
    );
}

/// The `src/` of every crate of the workspace.
fn workspace_crates() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut out: Vec<PathBuf> = std::fs::read_dir(crates)
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn no_import_cycle_inside_a_crate() {
    let mut found = Vec::new();
    for src in workspace_crates() {
        let modules = module_graph::modules(&src);
        for group in module_graph::cycles(&module_graph::edges(&modules)) {
            let names: Vec<String> = group.iter().map(|m| format!("/{}", m.join("/"))).collect();
            found.push(format!("{}: {}", src.display(), names.join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_module_graph_sees_a_cycle_through_a_parent() {
    // Two modules written as a parent and a child that import each other's
    // items: the check must see it, or it proves nothing.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\n").unwrap();
    std::fs::write(
        src.join("a/mod.rs"),
        "mod b;\npub struct Shared;\nfn f() { b::run(); }\n",
    )
    .unwrap();
    std::fs::write(src.join("a/b.rs"), "use super::Shared;\npub fn run() {}\n").unwrap();
    let modules = module_graph::modules(src);
    let cycles = module_graph::cycles(&module_graph::edges(&modules));
    assert_eq!(
        cycles,
        vec![vec![vec!["a".to_string()], vec!["a".into(), "b".into()]]]
    );
    // A facade that only re-exports its child is no cycle.
    std::fs::write(src.join("a/mod.rs"), "mod b;\npub use b::run;\n").unwrap();
    std::fs::write(src.join("a/b.rs"), "pub fn run() {}\n").unwrap();
    let modules = module_graph::modules(src);
    assert!(module_graph::cycles(&module_graph::edges(&modules)).is_empty());
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut long = Vec::new();
    for src in workspace_crates() {
        let mut files = Vec::new();
        sources(&src, "", &mut files);
        // Tests are code a reader holds in mind too.
        let tests = src.with_file_name("tests");
        if tests.is_dir() {
            sources(&tests, "fixtures", &mut files);
        }
        for file in files {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > 800 {
                long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over 800 lines:\n{}",
        long.join("\n")
    );
}
