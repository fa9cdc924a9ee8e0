//! Reading a long query for what it is. An issue's text or a commit message
//! is more than prose: a traceback names files, lines and functions; a path
//! or a dotted name names a file or a definition outright; a code block shows
//! the calls and imports a user made; an error line names an exception type.
//! [`read`] takes those spans apart (text only: nothing here knows the
//! index); [`crate::search::mentions`] resolves them against it.
//!
//! Traceback forms, each one line of a frame: Python (`File "p.py", line
//! 3, in f`), JavaScript (`at f (p.js:3:5)`), Java and the JVM (`at
//! a.b.C.m(C.java:3)`), and a `path:line[:col]` location, which Rust
//! (`at ./src/x.rs:3:5`, `panicked at src/x.rs:3:5`, `--> src/x.rs:3:5`) and
//! Go (`/home/u/x/cmd.go:42 +0x1d`) write on the line after the function's.

use std::sync::LazyLock;

use crate::lang::syntax;
use regex::Regex;

/// What a span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// A traceback frame: a file, often a line, often a function.
    Frame,
    /// A file path written in the text.
    Path,
    /// A dotted or `::` name (`click.core.Context`, `Command::new`), or an
    /// identifier written as code (`` `echo` ``, `get_text`, `isTTY`, `f()`).
    Name,
    /// A name used in a code block (a call, an import).
    Code,
    /// The type named by an error line (`ValueError: ...`).
    Error,
    /// The part of the project a commit's or report's first line names
    /// before a colon (`printer: fix ...`, `fix(router): ...`,
    /// `mm/slab: ...`): an area, not one file.
    Scope,
}

impl Span {
    /// Whether this frame's trace is written innermost frame last, as
    /// Python's ("most recent call last") is.
    pub fn innermost_last(&self) -> bool {
        self.kind == SpanKind::Frame && PY_FRAME.is_match(&self.text)
    }
}

impl SpanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanKind::Frame => "frame",
            SpanKind::Path => "path",
            SpanKind::Name => "name",
            SpanKind::Code => "code",
            SpanKind::Error => "error",
            SpanKind::Scope => "scope",
        }
    }
}

/// One span of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub kind: SpanKind,
    /// The text as written (for `--explain`).
    pub text: String,
    /// A file path the span names (frames, paths), with `/` separators.
    pub path: Option<String>,
    pub line: Option<u32>,
    /// A name: a frame's function, a dotted name's segments joined by `.`.
    pub name: Option<String>,
}

static PY_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?"#).expect("valid")
});
static JVM_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bat ((?:[\w$]+\.)+)([\w$<>]+)\(([\w$]+\.[A-Za-z][A-Za-z0-9]{0,5}):(\d+)\)")
        .expect("valid")
});
/// `path.ext:line[:col]`: a location in most other traces and in compilers' messages.
static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"((?:\b[A-Za-z]:)?[\w.~@+\-/\\]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,5}):(\d+)(?::\d+)?")
        .expect("valid")
});
/// The function of a JavaScript frame: `at name (` before the location.
static JS_FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bat (?:async )?(?:new )?([\w$.<>]+)(?: \[as [\w$]+\])? \(").expect("valid")
});
/// A Rust backtrace's function line: `  12: krate::module::function`.
static RUST_FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\d+:\s+(?:0x[0-9a-f]+ - )?((?:[\w<>]+::)+[\w<>]+?)(?:::h[0-9a-f]{16})?\s*$")
        .expect("valid")
});
/// A Go trace's function line: `github.com/o/r/pkg.(*T).Method(0xc0, ...)`.
static GO_FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*((?:[\w.\-]+/)*[\w\-]+\.(?:\(\*?[\w]+\)\.)?[\w]+)\(.*\)\s*$").expect("valid")
});
/// A written path with an extension: `src/click/core.py`, `core.py`, `./lib/router.js`.
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[\s(\[`'\x22<])((?:\.{0,2}/)?(?:[\w.\-@~+]+/)*[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})(?:$|[\s)\]`'\x22>,:;!?]|\.\s|\.$)")
        .expect("valid")
});
/// Two or more names joined by `.`, `::` or `#` (`Foo#bar` in Ruby's and
/// JavaScript's prose), with Go's `(*T).M` receivers.
static QUALIFIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)(?:\(\*?[A-Za-z_][\w]*\)|[A-Za-z_$][\w$]*))+")
        .expect("valid")
});
static BACKTICKED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([^`\n]{1,120})`").expect("valid"));
static CALLED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(").expect("valid"));
/// Imports in code: Python, JavaScript (`require`, `from`), Rust `use`.
static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^\s*from\s+([\w.]+)\s+import\s+\(?\s*([\w, ]+)",
        r"|^\s*import\s+([\w.]+)(?:\s+as\s+\w+)?\s*(?:,|;|$)",
        r"|require\(\s*['\x22]([^'\x22]+)['\x22]\s*\)",
        r"|\bfrom\s+['\x22]([^'\x22]+)['\x22]",
        r"|^\s*use\s+([\w:]+)"
    ))
    .expect("valid")
});
/// An error line: an exception type first (`ValueError: ...`,
/// `click.exceptions.UsageError: ...`, `TypeError [ERR_X]: ...`).
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:Uncaught |Caused by: |Exception in thread \S+ )?((?:[a-z_][\w$]*\.)+[A-Z][\w$]*|[A-Z][\w$]*(?:Error|Exception|Warning|Exit|Interrupt|Failure))(?:\s*\[[\w\-]+\])?(?::\s|:?$)")
        .expect("valid")
});

/// A first line's scope: `scope: `, `type(scope): ` or `type(scope)!: `,
/// where a scope may list parts (`mm/slab`, `a, b`). Group 1 is a
/// parenthesised scope, group 2 a bare one.
static SCOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[A-Za-z]+\(([\w\-./, ]+)\)|([A-Za-z][\w\-./]*(?:, ?[\w\-./]+)*))!?:\s")
        .expect("valid")
});

/// A query's spans are read up to this many: each is looked up in the index.
pub const MAX_SPANS: usize = 64;

/// The spans of a query, in the order they appear; one per distinct span,
/// the first [`MAX_SPANS`].
pub fn read(text: &str) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut push = |span: Span| {
        if spans.len() >= MAX_SPANS {
            return;
        }
        // One span per thing said; an error line's type is not a name again.
        let again = |s: &Span| {
            (s.kind == span.kind || (s.kind == SpanKind::Error && span.kind == SpanKind::Name))
                && s.path == span.path
                && s.name == span.name
        };
        if !spans.iter().any(again) {
            spans.push(span);
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    if let Some(first) = lines.iter().find(|l| !l.trim().is_empty()) {
        scope_of(first).into_iter().for_each(&mut push);
    }
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        let previous = i.checked_sub(1).map(|p| lines[p]);
        let frames = frames_in(line, previous);
        let framed = !frames.is_empty();
        frames.into_iter().for_each(&mut push);
        if let Some(error) = ERROR_LINE.captures(line) {
            push(Span {
                kind: SpanKind::Error,
                text: line.trim().chars().take(120).collect(),
                path: None,
                line: None,
                name: Some(normalise_name(&error[1])),
            });
        }
        let code = in_fence || line.starts_with("    ") || line.starts_with('\t');
        let code = code || line.trim_start().starts_with(">>> ");
        if code && !framed {
            code_spans(line).into_iter().for_each(&mut push);
        }
        if !framed {
            prose_spans(line).into_iter().for_each(&mut push);
        }
    }
    spans
}

/// The scope a first line names before its colon, its parts joined by `/`.
fn scope_of(line: &str) -> Option<Span> {
    let c = SCOPE.captures(line)?;
    let scope = c.get(1).or(c.get(2))?.as_str();
    let parts: Vec<&str> = scope
        .split(['/', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    (!parts.is_empty()).then(|| Span {
        kind: SpanKind::Scope,
        text: c[0].trim().to_string(),
        path: None,
        line: None,
        name: Some(parts.join("/")),
    })
}

/// The frames a line holds (`previous`: the line before, where Rust and Go
/// write a frame's function).
fn frames_in(line: &str, previous: Option<&str>) -> Vec<Span> {
    let frame = |path: &str, line_no: &str, name: Option<String>, text: &str| Span {
        kind: SpanKind::Frame,
        text: text.trim().chars().take(160).collect(),
        path: Some(clean_path(path)),
        line: line_no.parse().ok(),
        // `Object.<anonymous>`, `<impl X as Y>`: no name to look up.
        name: name.filter(|n| !n.is_empty() && !n.contains('<')),
    };
    if let Some(c) = PY_FRAME.captures(line) {
        let name = c.get(3).map(|m| m.as_str().to_string());
        return vec![frame(&c[1], &c[2], name, line)];
    }
    if let Some(c) = JVM_FRAME
        .captures(line)
        .filter(|c| has_known_extension(&c[3]))
    {
        // The package is the directory: `a.b.C.m(C.java:3)` is `a/b/C.java`.
        let owner = c[1].trim_end_matches('.');
        let package: Vec<&str> = owner
            .split('.')
            .filter(|s| s.starts_with(char::is_lowercase))
            .collect();
        let path = [package.join("/"), c[3].to_string()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("/");
        let class = owner.rsplit('.').next().unwrap_or(owner);
        let class = class.split('$').next().unwrap_or(class);
        return vec![frame(
            &path,
            &c[4],
            Some(format!("{class}.{}", &c[2])),
            line,
        )];
    }
    let mut out = Vec::new();
    for c in LOCATION.captures_iter(line) {
        let path = c.get(1).expect("group").as_str();
        if !has_known_extension(path) || line[..c.get(0).expect("match").start()].ends_with("://") {
            continue;
        }
        let name = JS_FUNCTION
            .captures(line)
            .map(|f| f[1].to_string())
            .or_else(|| previous.and_then(function_of_previous_line));
        out.push(frame(path, &c[2], name.map(|n| normalise_name(&n)), line));
    }
    out
}

/// A Rust or Go frame's function, written on the line before its location.
fn function_of_previous_line(line: &str) -> Option<String> {
    if let Some(c) = RUST_FUNCTION.captures(line) {
        return Some(c[1].to_string());
    }
    let c = GO_FUNCTION.captures(line)?;
    // `github.com/o/r/pkg.(*T).M` → `pkg.T.M`.
    let name = c[1].rsplit('/').next().unwrap_or(&c[1]);
    Some(name.replace("(*", "").replace(['(', ')'], ""))
}

/// Spans in a line of code: imports and the names called.
fn code_spans(line: &str) -> Vec<Span> {
    let line = line.trim_start().trim_start_matches(">>> ");
    let code = |name: String| Span {
        kind: SpanKind::Code,
        text: name.clone(),
        path: None,
        line: None,
        name: Some(name),
    };
    let mut out = Vec::new();
    if let Some(c) = IMPORT.captures(line) {
        if let (Some(module), Some(names)) = (c.get(1), c.get(2)) {
            out.push(code(module.as_str().to_string()));
            for name in names
                .as_str()
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
            {
                let name = name.split_whitespace().next().unwrap_or(name);
                out.push(code(format!("{}.{name}", module.as_str())));
            }
        }
        for group in [3, 6] {
            if let Some(m) = c.get(group) {
                out.push(code(normalise_name(m.as_str())));
            }
        }
        for group in [4, 5] {
            if let Some(m) = c.get(group) {
                // A module specifier: a path when relative, else a package name.
                let spec = m.as_str();
                if spec.starts_with('.') {
                    out.push(Span {
                        kind: SpanKind::Path,
                        text: spec.to_string(),
                        path: Some(clean_path(spec)),
                        line: None,
                        name: None,
                    });
                } else {
                    out.push(code(spec.replace('/', ".")));
                }
            }
        }
    }
    for c in CALLED.captures_iter(line) {
        out.push(code(normalise_name(&c[1])));
    }
    out
}

/// Spans in prose: paths, qualified names, identifiers written as code.
fn prose_spans(line: &str) -> Vec<Span> {
    let mut out = Vec::new();
    // The pattern's delimiters are consumed: each search starts where the
    // last path ended, so `e.g. Node.js` keeps the space before `Node.js`.
    let mut from = 0;
    while let Some(c) = PATH.captures_at(line, from) {
        let group = c.get(1).expect("group");
        from = group.end();
        let (path, start) = (group.as_str(), group.start());
        if !has_known_extension(path)
            || line[..start].ends_with("://")
            || looks_like_host(path, &line[..start])
        {
            continue;
        }
        out.push(Span {
            kind: SpanKind::Path,
            text: path.to_string(),
            path: Some(clean_path(path)),
            line: None,
            name: None,
        });
    }
    for m in QUALIFIED.find_iter(line) {
        let text = m.as_str();
        let before = &line[..m.start()];
        // Not a link, an address, a path's piece or a file name (`core.py`, as a path above).
        if before.ends_with("://")
            || before.ends_with('@')
            || before.ends_with('/')
            || line[m.end()..].starts_with('/')
            || has_known_extension(text)
            || text
                .split(['.', ':', '#'])
                .filter(|s| !s.is_empty())
                .all(|s| s.len() < 3)
        {
            continue;
        }
        out.push(name_span(text));
    }
    for c in BACKTICKED.captures_iter(line) {
        let inner = c[1].trim();
        if QUALIFIED.is_match(inner) || inner.contains(char::is_whitespace) {
            continue; // a qualified name, taken above, or code: its calls
        }
        let inner = inner.trim_end_matches("()");
        if !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            out.push(name_span(inner));
        }
    }
    for token in line.split_whitespace() {
        let word = token.trim_matches(|c: char| ",;:!?\"'`[]{}<>".contains(c));
        let word = word.strip_suffix('.').unwrap_or(word);
        let word = word.strip_prefix('(').unwrap_or(word);
        let bare = word.trim_end_matches("()");
        let called = word.ends_with("()") && !bare.is_empty();
        // A dotted name or a path is taken whole above.
        if !bare.chars().all(|c| c.is_alphanumeric() || c == '_') || bare.is_empty() {
            continue;
        }
        if called || is_compound_identifier(bare) {
            out.push(name_span(bare));
        }
    }
    out
}

fn name_span(text: &str) -> Span {
    Span {
        kind: SpanKind::Name,
        text: text.to_string(),
        path: None,
        line: None,
        name: Some(normalise_name(text)),
    }
}

/// `snake_case`, `camelCase`, `HTTPServer`-like: a word no prose writes.
fn is_compound_identifier(word: &str) -> bool {
    let inner_capital = word
        .chars()
        .zip(word.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 3
        && word.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && (word.trim_matches('_').contains('_') || inner_capital)
}

/// Segments joined by `.`: `a::b` and `A#b` read as `a.b`; `(*T)` as `T`;
/// a trailing `()` dropped.
pub fn normalise_name(text: &str) -> String {
    text.trim_end_matches("()")
        .replace(syntax::PATH_SEPARATOR, ".")
        .replace('#', ".")
        .replace("(*", "")
        .replace(['(', ')'], "")
        .trim_matches('.')
        .to_string()
}

/// Backslashes as slashes, without `file://`, `./` and a Windows drive.
fn clean_path(path: &str) -> String {
    let path = path
        .strip_prefix("file://")
        .unwrap_or(path)
        .replace('\\', "/");
    // `file:///home/u` loses its scheme to the location pattern, not its slashes.
    let path = if path.starts_with("//") {
        format!("/{}", path.trim_start_matches('/'))
    } else {
        path
    };
    let path = match path.as_bytes() {
        [drive, b':', b'/', ..] if drive.is_ascii_alphabetic() => path[2..].to_string(),
        _ => path,
    };
    path.trim_start_matches("./").to_string()
}

/// `example.com` and `www.x.org` in prose are hosts, not files.
fn looks_like_host(path: &str, before: &str) -> bool {
    !path.contains('/') && (before.trim_end().ends_with("//") || path.starts_with("www."))
}

/// A file evident would index or a document: a language's or a document
/// format's extension.
fn has_known_extension(path: &str) -> bool {
    let Some((stem, ext)) = path.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && !stem.ends_with('/')
        && (crate::lang::for_path(path).is_some()
            || crate::lang::docs::for_path(path).is_some()
            || matches!(
                ext.to_ascii_lowercase().as_str(),
                "txt" | "toml" | "json" | "yaml" | "yml" | "cfg" | "ini"
            ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(text: &str) -> Vec<(String, Option<u32>, Option<String>)> {
        read(text)
            .into_iter()
            .filter(|s| s.kind == SpanKind::Frame)
            .map(|s| (s.path.unwrap(), s.line, s.name))
            .collect()
    }

    fn own(path: &str, line: u32, name: Option<&str>) -> (String, Option<u32>, Option<String>) {
        (path.to_string(), Some(line), name.map(str::to_string))
    }

    #[test]
    fn python_tracebacks() {
        let text = "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/site-packages/click/core.py\", line 1078, in main\n    rv = self.invoke(ctx)\n  File \"src/click/types.py\", line 42, in convert\n    raise BadParameter(x)\nclick.exceptions.BadParameter: nope";
        assert_eq!(
            frames(text),
            [
                own(
                    "/usr/lib/python3.11/site-packages/click/core.py",
                    1078,
                    Some("main")
                ),
                own("src/click/types.py", 42, Some("convert")),
            ]
        );
        let spans = read(text);
        assert!(spans.iter().any(|s| s.kind == SpanKind::Error
            && s.name.as_deref() == Some("click.exceptions.BadParameter")));
        // The frame's code line is code, not a frame.
        assert!(spans
            .iter()
            .any(|s| s.kind == SpanKind::Code && s.name.as_deref() == Some("self.invoke")));
    }

    #[test]
    fn javascript_traces() {
        let text = "TypeError: Cannot read properties of undefined\n    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)\n    at next (lib/router/route.js:149:13)\n    at /home/u/app/index.js:12:3\n    at Object.<anonymous> (file:///home/u/app/main.mjs:3:9)";
        assert_eq!(
            frames(text),
            [
                own(
                    "/app/node_modules/express/lib/router/layer.js",
                    95,
                    Some("Layer.handle")
                ),
                own("lib/router/route.js", 149, Some("next")),
                own("/home/u/app/index.js", 12, None),
                own("/home/u/app/main.mjs", 3, None),
            ]
        );
    }

    #[test]
    fn rust_panics_and_backtraces() {
        let text = "thread 'main' panicked at crates/core/flags/parse.rs:120:9:\nindex out of bounds\nstack backtrace:\n   3: grep_searcher::searcher::Searcher::search_path\n             at ./crates/searcher/src/searcher/mod.rs:612:9\nerror[E0308]: mismatched types\n --> src/main.rs:4:18";
        assert_eq!(
            frames(text),
            [
                own("crates/core/flags/parse.rs", 120, None),
                own(
                    "crates/searcher/src/searcher/mod.rs",
                    612,
                    Some("grep_searcher.searcher.Searcher.search_path")
                ),
                own("src/main.rs", 4, None),
            ]
        );
    }

    #[test]
    fn go_traces() {
        let text = "panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\ngithub.com/spf13/cobra.(*Command).ExecuteC(0xc0000a2000)\n\t/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.0/command.go:1015 +0x9c\nmain.main()\n\t/home/u/app/main.go:9 +0x1d";
        assert_eq!(
            frames(text),
            [
                own(
                    "/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.0/command.go",
                    1015,
                    Some("cobra.Command.ExecuteC")
                ),
                own("/home/u/app/main.go", 9, Some("main.main")),
            ]
        );
    }

    #[test]
    fn java_traces() {
        let text = "Exception in thread \"main\" java.lang.IllegalStateException: closed\n\tat com.acme.store.Store.open(Store.java:42)\n\tat com.acme.App$Inner.main(App.java:7)";
        assert_eq!(
            frames(text),
            [
                own("com/acme/store/Store.java", 42, Some("Store.open")),
                own("com/acme/App.java", 7, Some("App.main")),
            ]
        );
    }

    #[test]
    fn paths_and_names_in_prose() {
        let spans = read("Calling `Context.invoke()` from src/click/core.py breaks echo_via_pager, see lib/router/index.js. Also `echo` and isTTY; e.g. Node.js users. https://example.com/a/b.py and user@host.rs");
        let named = |kind: SpanKind| -> Vec<String> {
            spans
                .iter()
                .filter(|s| s.kind == kind)
                .map(|s| s.path.clone().or(s.name.clone()).unwrap())
                .collect()
        };
        assert_eq!(
            named(SpanKind::Path),
            ["src/click/core.py", "lib/router/index.js", "Node.js"]
        );
        assert_eq!(
            named(SpanKind::Name),
            ["Context.invoke", "echo", "echo_via_pager", "isTTY"]
        );
        assert!(read("the e.g. and i.e. and U.S forms").is_empty());
    }

    #[test]
    fn code_blocks_give_their_imports_and_calls() {
        let text = "Repro:\n```python\nfrom httpx._client import Client, AsyncClient\nimport httpx.models\nc = Client(base_url=u)\nc.send(req)\n```\n```js\nconst router = require('./lib/router')\nimport x from 'express/lib/utils'\n```";
        let code: Vec<String> = read(text)
            .into_iter()
            .filter(|s| matches!(s.kind, SpanKind::Code | SpanKind::Path))
            .map(|s| s.path.or(s.name).unwrap())
            .collect();
        assert_eq!(
            code,
            [
                "httpx._client",
                "httpx._client.Client",
                "httpx._client.AsyncClient",
                "httpx.models",
                "Client",
                "c.send",
                "lib/router",
                "require",
                "express.lib.utils",
            ]
        );
    }

    #[test]
    fn a_first_lines_scope_names_an_area() {
        let scope = |text: &str| {
            read(text)
                .into_iter()
                .find(|s| s.kind == SpanKind::Scope)
                .and_then(|s| s.name)
        };
        for (text, named) in [
            ("printer: fix a bug in printing", Some("printer")),
            ("grep-cli: strip the last byte", Some("grep-cli")),
            ("fix(router): trailing slash", Some("router")),
            ("feat(core, cli)!: new flag", Some("core/cli")),
            ("mm/slab: fix a leak", Some("mm/slab")),
            ("\n  ignore: fix filtering\n\nbody: more", Some("ignore")),
            ("Fix printer: it wraps", None),
            ("printer:fix without a space", None),
            ("body\nprinter: on a later line", None),
            ("ValueError: bad input", Some("ValueError")),
        ] {
            assert_eq!(scope(text).as_deref(), named, "{text:?}");
        }
    }
}
