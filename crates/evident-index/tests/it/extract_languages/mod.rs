//! Per-language extraction: each fixture in `fixtures/lang/` against a
//! reviewed snapshot of its definitions, imports and call sites, plus explicit
//! checks of the facts each language must get right.

mod first_languages;
mod more_languages;

use evident_index::extract::{extract, FileFacts};
use evident_index::{lang, Kind};

use crate::common;

fn facts(file: &str) -> FileFacts {
    let path = format!("{}/tests/fixtures/lang/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap();
    let spec = lang::for_path(file).unwrap();
    extract(spec, &format!("pkg/{file}"), &source)
}

/// A stable, reviewable rendering of a file's facts.
fn render(f: &FileFacts) -> String {
    let mut out = format!(
        "module: {}\nsyntax errors: {}\n",
        f.module, f.has_syntax_errors
    );
    for d in &f.definitions {
        let parent = d
            .parent
            .map_or("-".to_string(), |p| f.definitions[p].name.clone());
        out += &format!(
            "def {} {} [{}] {}-{} parent={} sig={:?}",
            d.kind, d.name, d.qualified_name, d.start_line, d.end_line, parent, d.signature
        );
        if let Some(doc) = &d.doc {
            out += &format!(" doc={doc:?}");
        }
        if d.declaration {
            out += " declaration";
        }
        out += "\n";
    }
    for i in &f.imports {
        out += &format!(
            "import {}-{} module={:?} name={:?} alias={:?}\n",
            i.start_line, i.end_line, i.module, i.name, i.alias
        );
    }
    for c in &f.calls {
        let within = c
            .enclosing
            .map_or("-".to_string(), |e| f.definitions[e].qualified_name.clone());
        out += &format!("call {} {} in={}\n", c.line, c.callee, within);
    }
    out
}

fn def<'a>(f: &'a FileFacts, name: &str) -> &'a evident_index::extract::Definition {
    f.definitions
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no definition {name}"))
}

fn has_import(f: &FileFacts, module: &str, name: Option<&str>, alias: Option<&str>) -> bool {
    f.imports
        .iter()
        .any(|i| i.module == module && i.name.as_deref() == name && i.alias.as_deref() == alias)
}

fn has_call(f: &FileFacts, callee: &str, within: Option<&str>) -> bool {
    f.calls.iter().any(|c| {
        c.callee == callee && c.enclosing.map(|e| f.definitions[e].name.as_str()) == within
    })
}

/// Extracts `source` as the language of `file`.
fn facts_of(file: &str, source: &str) -> FileFacts {
    extract(lang::for_path(file).unwrap(), file, source)
}

fn names(f: &FileFacts) -> Vec<&str> {
    f.definitions.iter().map(|d| d.name.as_str()).collect()
}
