//! Extraction: one file's text in, its definitions, imports and call sites out.
//!
//! This module knows no grammar. It runs the language's query (see
//! `queries/README.md` for the capture names) and applies language-neutral
//! rules: nesting by byte ranges, methods inside class-like scopes, doc
//! comments right above a definition, qualified names from the module path.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Parser, QueryCursor};

use crate::evidence::Kind;
use crate::lang::{self, LanguageSpec};

const MAX_SIGNATURE_CHARS: usize = 300;
const MAX_DOC_CHARS: usize = 2000;
const MAX_CALLEE_CHARS: usize = 200;

/// A definition found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub kind: Kind,
    pub name: String,
    pub qualified_name: String,
    pub signature: String,
    pub doc: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// Index into the file's definitions of the enclosing definition.
    pub parent: Option<usize>,
    /// Base classes as written (`models.Model`), for method lookup through inheritance.
    pub bases: Vec<String>,
    /// A declaration without a body (a C prototype in a header, a method
    /// declared in its class and defined outside): the definition with the
    /// same qualified name, where one exists, is where it is defined.
    pub declaration: bool,
}

/// One import binding: `from module import name as alias`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub start_line: u32,
    pub end_line: u32,
    pub module: String,
    /// The imported name; `*` for a glob import; `None` when the module itself is imported.
    pub name: Option<String>,
    pub alias: Option<String>,
    /// The local name the import makes visible (`osp` for `import os.path as osp`,
    /// `os` for `import os.path`); `None` for glob imports.
    pub binding: Option<String>,
}

/// The local name an import binds, by the language's rule for plain module imports.
pub fn import_binding(
    spec: &LanguageSpec,
    module: &str,
    name: Option<&str>,
    alias: Option<&str>,
) -> Option<String> {
    if let Some(alias) = alias {
        return Some(alias.to_string());
    }
    match name {
        Some("*") => None,
        Some(name) => Some(name.to_string()),
        None => {
            let sep = if module.contains('/') {
                "/"
            } else {
                spec.separator
            };
            let mut segments = module.split(sep).filter(|s| !s.is_empty() && *s != ".");
            let binding = match spec.module_binding {
                lang::ModuleBinding::FirstSegment => segments.next(),
                lang::ModuleBinding::LastSegment => segments.last(),
            };
            binding.map(|b| b.trim_start_matches('@').to_string())
        }
    }
}

/// A call site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    pub line: u32,
    pub callee: String,
    /// The last identifier of the callee (`open` in `self.store.open`).
    pub callee_name: String,
    /// The first identifier of the callee (`self` in `self.store.open`).
    pub callee_head: String,
    /// Index into the file's definitions of the innermost enclosing definition.
    pub enclosing: Option<usize>,
    /// The arguments as written (`work`, `callback=work`; `*` for a splat),
    /// for a parameter's value at the call (argument flow).
    pub arguments: Vec<String>,
}

/// The suffix naming a container's elements: `OPS[]` holds what `OPS[k]` gives.
pub const ELEMENTS: &str = "[]";

/// The prefix naming what a decorated definition's name holds: `@f` is bound
/// to each decorator of `f` (`@d def f` is `f = d(f)`). Kept apart from `f`
/// itself, which still names the definition as written (what the decorator
/// is given, a property's method).
pub const DECORATED: &str = "@";

/// What a binding says about a name, for the types that flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// `x = f(...)`: the result of calling `f` (a class: an instance of it).
    CallResult,
    /// `b = a.func`: whatever the expression is.
    Alias,
    /// `x: Foo`, `def f(x: Foo)`, `-> Foo`: declared to be a `Foo`.
    Type,
    /// `self.n = a + b`: bound here, to nothing the types can follow.
    Opaque,
    /// `def f(a, b)`: the parameter at this position, bound by each call.
    Parameter,
}

impl Binding {
    /// The stored form: `f()` for a call's result, `:Foo` for a type, the
    /// expression itself for an alias.
    pub fn encode(self, expression: &str) -> String {
        match self {
            Binding::CallResult => format!("{expression}()"),
            Binding::Alias => expression.to_string(),
            Binding::Type => format!(":{expression}"),
            Binding::Opaque => "?".to_string(),
            Binding::Parameter => format!("#{expression}"),
        }
    }

    /// The binding and its expression, from the stored form.
    pub fn decode(stored: &str) -> (Binding, &str) {
        if stored == "?" {
            (Binding::Opaque, "")
        } else if let Some(position) = stored
            .strip_prefix('#')
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            (Binding::Parameter, position)
        } else if let Some(ty) = stored.strip_prefix(':') {
            (Binding::Type, ty)
        } else if let Some(callee) = stored.strip_suffix("()") {
            (Binding::CallResult, callee)
        } else {
            (Binding::Alias, stored)
        }
    }
}

/// A name bound in a scope: `x = Cls(...)`, `b = f`, `x: Foo`, a parameter's
/// annotation, or (name `return`) what a function returns. A name written
/// `self.x` is an attribute of the enclosing method's class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assignment {
    pub line: u32,
    pub name: String,
    /// As [`Binding::encode`] writes it.
    pub value: String,
    /// Index into the file's definitions of the enclosing definition.
    pub enclosing: Option<usize>,
}

/// What one file contributes to the index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// The module path that prefixes qualified names.
    pub module: String,
    pub definitions: Vec<Definition>,
    pub imports: Vec<Import>,
    pub calls: Vec<Call>,
    pub assignments: Vec<Assignment>,
    /// The parse tree contains syntax errors; what could be read is still here.
    pub has_syntax_errors: bool,
    /// The language the file was read as, when not the one its extension
    /// names (a `.h` read as C++: the spec's `fallback`).
    /// (Kept apart in the parse cache: a name, not the table's own string.)
    #[serde(skip)]
    pub read_as: Option<&'static str>,
    pub line_count: u32,
    /// Set when the file gave more than [`MAX_FACTS_PER_FILE`] definitions or
    /// calls: the line from which it was read as text only.
    pub symbols_end_line: Option<u32>,
}

impl FileFacts {
    /// Adds the facts of a later part of the same file: its indices into
    /// definitions move past the ones already here.
    fn append(&mut self, part: FileFacts) {
        let offset = self.definitions.len();
        let moved = |i: Option<usize>| i.map(|i| i + offset);
        self.definitions
            .extend(part.definitions.into_iter().map(|d| Definition {
                parent: moved(d.parent),
                ..d
            }));
        self.calls.extend(part.calls.into_iter().map(|c| Call {
            enclosing: moved(c.enclosing),
            ..c
        }));
        self.assignments
            .extend(part.assignments.into_iter().map(|a| Assignment {
                enclosing: moved(a.enclosing),
                ..a
            }));
        self.imports.extend(part.imports);
        self.has_syntax_errors |= part.has_syntax_errors;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Definition(Kind),
    Name,
    Doc,
    Receiver,
    Base,
    BaseOf,
    Scope,
    Package,
    Import,
    ImportModule,
    ImportName,
    ImportAlias,
    ImportWildcard,
    Call,
    CallCallee,
    CallObject,
    CallName,
    CallArguments,
    /// The one argument of a call the syntax does not write as a list: the
    /// definition a decorator is applied to.
    CallArgument,
    Assign,
    AssignName,
    AssignValue,
    AssignAlias,
    AssignType,
    AssignOpaque,
    AssignParameter,
    Ignored,
}

fn role_of(capture: &str) -> Role {
    if let Some(kind) = capture.strip_prefix("definition.") {
        return Kind::parse(kind)
            .map(Role::Definition)
            .unwrap_or_else(|| panic!("query uses unknown definition kind {kind:?}"));
    }
    match capture {
        "name" => Role::Name,
        "doc" => Role::Doc,
        "receiver" => Role::Receiver,
        "base" => Role::Base,
        "base.of" => Role::BaseOf,
        "scope" => Role::Scope,
        "package" => Role::Package,
        "import" => Role::Import,
        "import.module" => Role::ImportModule,
        "import.name" => Role::ImportName,
        "import.alias" => Role::ImportAlias,
        "import.wildcard" => Role::ImportWildcard,
        "call" => Role::Call,
        "call.callee" => Role::CallCallee,
        "call.object" => Role::CallObject,
        "call.name" => Role::CallName,
        "call.arguments" => Role::CallArguments,
        "call.argument" => Role::CallArgument,
        "assign" => Role::Assign,
        "assign.name" => Role::AssignName,
        "assign.value" => Role::AssignValue,
        "assign.alias" => Role::AssignAlias,
        "assign.type" => Role::AssignType,
        "assign.opaque" => Role::AssignOpaque,
        "assign.parameter" => Role::AssignParameter,
        other if other.starts_with('_') => Role::Ignored,
        other => panic!("query uses unknown capture @{other}"),
    }
}

/// A definition or a scope while nesting is worked out.
struct Scoped {
    start_byte: usize,
    /// Where the definition itself starts, after its wrapper's decorators:
    /// a decorator runs in the scope around the definition.
    own_start_byte: usize,
    end_byte: usize,
    start_line: u32,
    end_line: u32,
    name: String,
    /// `None` for a pure scope (`impl`).
    kind: Option<Kind>,
    doc: Option<String>,
    receiver: Option<String>,
    bases: Vec<String>,
    signature: String,
    leading_doc: Option<String>,
    declaration: bool,
}

struct RawImport {
    node_id: usize,
    start_line: u32,
    end_line: u32,
    module: String,
    name: Option<String>,
    alias: Option<String>,
}

/// Parses `source` as `spec`'s language and extracts its facts.
pub fn extract(spec: &LanguageSpec, rel_path: &str, source: &str) -> FileFacts {
    extract_in(spec, rel_path, source, &Context::default())
}

/// What extraction needs to know of the repository a file is in.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The Rust crate the file belongs to (see [`lang::module_path_in`]).
    pub crate_name: Option<&'a str>,
    /// Whether the repository has files of the language's `fallback` (C++
    /// sources beside C headers). Without any, a file is tried as the
    /// fallback only when a line starts with one of its markers, not for
    /// syntax errors alone: the kernel's headers would each be parsed twice.
    pub fallback_present: bool,
}

impl Default for Context<'_> {
    fn default() -> Self {
        Context {
            crate_name: None,
            fallback_present: true,
        }
    }
}

/// Files larger than this are read in parts of about this size, cut where a
/// line starts a top-level item: a part's syntax tree, not the file's, is
/// what is held at once (a 50 MB generated file's tree takes gigabytes).
pub const PART_BYTES: usize = 1 << 20;

/// A file stops giving symbols after the part in which it passes this many
/// definitions or calls; the rest of it is still searched as text. Generated
/// giants hold millions: each costs memory in the run and in every later
/// call resolution, and none is a definition anyone looks up by name.
pub const MAX_FACTS_PER_FILE: usize = 50_000;

/// [`extract`] for a file of a repository described by `context`.
pub fn extract_in(
    spec: &LanguageSpec,
    rel_path: &str,
    source: &str,
    context: &Context,
) -> FileFacts {
    let line_count = count_lines(source);
    // The parser reads the text with the language's attribute macros blanked
    // out (`static int __init f(void)`); every offset is the same, so names,
    // signatures and docs are still read from the text as written.
    let parsed_text = blank_identifiers(source, spec.blank_identifiers);
    if source.len() <= PART_BYTES {
        let mut facts = extract_part(spec, rel_path, source, &parsed_text, None, context);
        facts.line_count = line_count;
        return facts;
    }
    // In parts. The first decides the language (a `.h` read as C++); every
    // part's rows carry the file's own lines, as a whole parse gives them.
    let mut facts = FileFacts::default();
    let mut spec = spec;
    let mut context = *context;
    let mut start = tree_sitter::Point { row: 0, column: 0 };
    let mut start_byte = 0;
    while start_byte < source.len() {
        if facts.definitions.len() >= MAX_FACTS_PER_FILE || facts.calls.len() >= MAX_FACTS_PER_FILE
        {
            facts.symbols_end_line = Some(start.row as u32 + 1);
            break;
        }
        let part = part_at(source, start_byte, start);
        let part_facts = extract_part(spec, rel_path, source, &parsed_text, Some(part), &context);
        if start_byte == 0 {
            if let Some(other) = part_facts.read_as.and_then(lang::by_name) {
                spec = other;
            }
            context.fallback_present = false;
            facts.module = part_facts.module.clone();
            facts.read_as = part_facts.read_as;
        }
        facts.append(part_facts);
        (start_byte, start) = (part.end_byte, part.end_point);
    }
    facts.line_count = line_count;
    facts
}

/// Where a part that should end near `wanted` ends: the start of the first
/// line after `wanted` that starts a top-level item (unindented, after a
/// blank line, not a closing bracket), else of any unindented line, else of
/// any line, looking no further than a few parts ahead.
fn part_end(source: &str, wanted: usize) -> usize {
    let bytes = source.as_bytes();
    if wanted >= bytes.len() {
        return bytes.len();
    }
    let starts_item = |at: usize| {
        bytes
            .get(at)
            .is_some_and(|b| !b.is_ascii_whitespace() && !matches!(b, b'}' | b')' | b']'))
    };
    let line_starts = |from: usize, to: usize| {
        let to = to.min(bytes.len());
        line_starts_in(&bytes[from..to]).map(move |i| from + i)
    };
    let horizon = wanted + 4 * PART_BYTES;
    let after_blank = line_starts(wanted, horizon)
        .find(|&at| starts_item(at) && at >= 2 && bytes[at - 2] == b'\n');
    let unindented = || line_starts(wanted, horizon).find(|&at| starts_item(at));
    let any = || line_starts(wanted, bytes.len()).next();
    let mut end = after_blank
        .or_else(unindented)
        .or_else(any)
        .unwrap_or(bytes.len());
    // Never inside a character (lines start after a `\n`, so this is only
    // for safety).
    while !source.is_char_boundary(end) {
        end += 1;
    }
    end
}

/// The offsets within `bytes` at which a line starts after a newline.
fn line_starts_in(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1)
}

/// The part of `source` from `start_byte` (at `start`) to where [`part_end`]
/// cuts it, with its end's row and column counted within the part only.
fn part_at(source: &str, start_byte: usize, start: tree_sitter::Point) -> tree_sitter::Range {
    let end_byte = part_end(source, start_byte + PART_BYTES);
    let part = &source.as_bytes()[start_byte..end_byte];
    let newlines = part.iter().filter(|&&b| b == b'\n').count();
    let end_point = match part.iter().rposition(|&b| b == b'\n') {
        Some(last) => tree_sitter::Point {
            row: start.row + newlines,
            column: part.len() - last - 1,
        },
        None => tree_sitter::Point {
            row: start.row,
            column: start.column + part.len(),
        },
    };
    tree_sitter::Range {
        start_byte,
        end_byte,
        start_point: start,
        end_point,
    }
}

/// The facts of `source`, or of the part of it at `range`: a part is parsed
/// on its own, with its nodes at their places in the whole text.
fn extract_part(
    spec: &LanguageSpec,
    rel_path: &str,
    source: &str,
    parsed_text: &str,
    range: Option<tree_sitter::Range>,
    context: &Context,
) -> FileFacts {
    let crate_name = context.crate_name;
    let Some(tree) = parse(spec, parsed_text, range) else {
        return FileFacts {
            module: lang::module_path_in(spec, rel_path, crate_name),
            has_syntax_errors: true,
            ..FileFacts::default()
        };
    };
    // A file may be another language's (a C++ `.h`): tried when this one
    // reads it with errors or a line starts with one of the other's markers.
    // Kept when it reads the file cleanly where this one does not, or, with
    // a marker, with no more errors (kernel headers say "namespace" and
    // "virtual" in their comments: markers count only at a line's start).
    let read = range.map_or(source, |r| &source[r.start_byte..r.end_byte]);
    let marked = !spec.fallback_markers.is_empty()
        && read.lines().any(|line| {
            let line = line.trim_start();
            spec.fallback_markers.iter().any(|m| line.starts_with(m))
        });
    let named = spec.name;
    let (spec, tree) = match spec.fallback.and_then(lang::by_name) {
        Some(other) if marked || context.fallback_present && tree.root_node().has_error() => {
            match parse(other, parsed_text, range) {
                Some(second) => {
                    let (theirs, ours) = (error_count(&second), error_count(&tree));
                    if (theirs == 0 && ours > 0) || (marked && theirs <= ours) {
                        (other, second)
                    } else {
                        (spec, tree)
                    }
                }
                None => (spec, tree),
            }
        }
        _ => (spec, tree),
    };
    let root = tree.root_node();
    let query = spec.query();
    let roles: Vec<Role> = query.capture_names().iter().map(|n| role_of(n)).collect();
    let bytes = source.as_bytes();
    let text = |node: Node| node.utf8_text(bytes).unwrap_or("");

    let mut scoped: HashMap<usize, Scoped> = HashMap::new();
    let mut raw_imports: Vec<RawImport> = Vec::new();
    // (start byte, line, callee, arguments, a bare name that is no call
    // where its function binds it: `#set! call.unless_bound`).
    let mut calls: Vec<(usize, u32, String, Vec<String>, bool)> = Vec::new();
    let mut assigns: Vec<(usize, u32, String, String)> = Vec::new();
    let mut package: Option<String> = None;
    // `@base.of`: bases matched apart from their definition's own pattern.
    let mut bases_of: Vec<(usize, String)> = Vec::new();

    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, bytes);
    while let Some(m) = matches.next() {
        let mut def: Option<(Node, Option<Kind>)> = None;
        let (mut name, mut doc, mut receiver, mut base) = (None, None, None, None);
        let mut base_of = None;
        let mut import_node = None;
        let mut modules: Vec<Node> = Vec::new();
        let (mut import_name, mut import_alias, mut wildcard) = (None, None, false);
        let (mut call, mut callee, mut object, mut method) = (None, None, None, None);
        let (mut arguments, mut argument) = (None, None);
        let (mut assign, mut assign_name, mut assign_value) = (None, None, None);
        for capture in m.captures() {
            let node = capture.node;
            match roles[capture.index as usize] {
                Role::Definition(kind) => def = Some((node, Some(kind))),
                Role::Scope => def = Some((node, None)),
                Role::Name => name = Some(node),
                Role::Doc => doc = Some(node),
                Role::Receiver => receiver = Some(node),
                Role::Base => base = Some(node),
                Role::BaseOf => base_of = Some(node),
                Role::Package => package = Some(text(node).to_string()),
                Role::Import => import_node = Some(node),
                Role::ImportModule => modules.push(node),
                Role::ImportName => import_name = Some(text(node).to_string()),
                Role::ImportAlias => import_alias = Some(text(node).to_string()),
                Role::ImportWildcard => wildcard = true,
                Role::Call => call = Some(node),
                Role::CallCallee => callee = Some(node),
                Role::CallObject => object = Some(node),
                Role::CallName => method = Some(node),
                Role::CallArguments => arguments = Some(node),
                Role::CallArgument => argument = Some(node),
                Role::Assign => assign = Some(node),
                Role::AssignName => assign_name = Some(node),
                Role::AssignValue => assign_value = Some((node, Binding::CallResult)),
                Role::AssignAlias => assign_value = Some((node, Binding::Alias)),
                Role::AssignType => assign_value = Some((node, Binding::Type)),
                Role::AssignOpaque => assign_value = Some((node, Binding::Opaque)),
                Role::AssignParameter => assign_value = Some((node, Binding::Parameter)),
                Role::Ignored => {}
            }
        }
        // `#set! key "value"` on the matched pattern.
        let setting = |key: &str| {
            query
                .property_settings(m.pattern_index)
                .iter()
                .find(|p| &*p.key == key)
                .and_then(|p| p.value.as_deref().map(str::to_string))
        };
        if let (Some(owner), Some(base)) = (base_of, base) {
            bases_of.push((owner.id(), normalize_space(text(base), MAX_CALLEE_CHARS)));
            continue;
        }
        if let (Some((node, kind)), Some(name)) = (def, name) {
            let outer = wrapper_of(spec, node);
            let entry = scoped.entry(node.id()).or_insert_with(|| Scoped {
                start_byte: outer.start_byte(),
                own_start_byte: node.start_byte(),
                end_byte: outer.end_byte(),
                start_line: outer.start_position().row as u32 + 1,
                end_line: end_line_of(outer),
                // `#set! definition.name`: a name the syntax does not write
                // (`init`); `definition.name_prefix`: a sigil to drop (`:total`).
                name: setting("definition.name").unwrap_or_else(|| {
                    let written = text(name);
                    match setting("definition.name_prefix") {
                        Some(sigil) => written.strip_prefix(sigil.as_str()).unwrap_or(written),
                        None => written,
                    }
                    .to_string()
                }),
                kind,
                doc: None,
                receiver: None,
                bases: Vec::new(),
                signature: signature_of(node, source),
                leading_doc: kind.and_then(|_| leading_comments(spec, outer, source)),
                declaration: setting("definition.declaration").is_some(),
            });
            if let Some(doc) = doc {
                entry.doc = Some(clean_docstring(text(doc)));
            }
            if let Some(receiver) = receiver {
                entry.receiver = Some(text(receiver).to_string());
            }
            if let Some(base) = base {
                let base = normalize_space(text(base), MAX_CALLEE_CHARS);
                if !entry.bases.contains(&base) {
                    entry.bases.push(base);
                }
            }
        }
        if let Some(node) = import_node {
            modules.sort_by_key(|n| n.start_byte());
            let mut parts: Vec<String> = setting("import.module").into_iter().collect();
            parts.extend(modules.iter().map(|n| strip_quotes(text(*n)).to_string()));
            // A set prefix ending in `/` marks a path relative to the file
            // (`require_relative`): it is written before the path, not joined.
            if parts.len() > 1 && parts[0].ends_with('/') {
                let prefix = parts.remove(0);
                parts[0].insert_str(0, &prefix);
            }
            let mut name = import_name
                .or_else(|| setting("import.name"))
                .or_else(|| wildcard.then(|| "*".to_string()));
            // `#set! import.path KEYWORD`: the captured text after KEYWORD, up
            // to its selectors, is a whole path; without an imported name its
            // last segment is the name (`import a.b.C`).
            if let Some(keyword) = setting("import.path") {
                let joined = parts.join(spec.separator);
                let path = joined
                    .trim()
                    .strip_prefix(keyword.as_str())
                    .unwrap_or(&joined);
                let path = path.split(['{', '\n']).next().unwrap_or("").trim();
                let path = path
                    .trim_end_matches(['_', '*'])
                    .trim_end_matches(spec.separator)
                    .to_string();
                parts = vec![path];
                if name.is_none() {
                    if let Some((module, last)) = parts[0].rsplit_once(spec.separator) {
                        name = Some(last.to_string());
                        parts = vec![module.to_string()];
                    }
                }
            }
            raw_imports.push(RawImport {
                node_id: node.id(),
                start_line: node.start_position().row as u32 + 1,
                end_line: end_line_of(node),
                module: parts.join(spec.separator),
                name,
                alias: import_alias,
            });
        }
        if let (Some(node), Some((value, binding))) = (assign, assign_value) {
            let name = match assign_name {
                Some(name) => Some(text(name).to_string()),
                None => setting("assign.name"),
            };
            if let Some(mut name) = name {
                // `#set! assign.type "list"`: a literal's type, named by the query.
                let mut value = match setting("assign.type") {
                    Some(ty) if binding == Binding::Type => ty,
                    // A parameter's position among its siblings.
                    _ if binding == Binding::Parameter => {
                        position_among_siblings(value).to_string()
                    }
                    _ => normalize_space(text(value), MAX_CALLEE_CHARS),
                };
                // Containers: `#set! assign.element "name"` binds what the
                // elements of `name` hold (`OPS = {"a": f}` binds `OPS[]` to
                // `f`); `"value"` binds a name to the elements of the value
                // (`for step in steps` binds `step` to `steps[]`).
                match setting("assign.element").as_deref() {
                    Some("name") => name.push_str(ELEMENTS),
                    Some("value") => value.push_str(ELEMENTS),
                    _ => {}
                }
                // `#set! assign.decorated`: what the decorated name holds.
                if setting("assign.decorated").is_some() {
                    name.insert_str(0, DECORATED);
                }
                assigns.push((
                    node.start_byte(),
                    node.start_position().row as u32 + 1,
                    name,
                    binding.encode(&value),
                ));
            }
        }
        if let Some(node) = call {
            let callee_text = match (callee, object, method) {
                (Some(c), _, _) => text(c).to_string(),
                (None, Some(o), Some(n)) => format!("{}.{}", text(o), text(n)),
                (None, None, Some(n)) => text(n).to_string(),
                _ => continue,
            };
            calls.push((
                node.start_byte(),
                node.start_position().row as u32 + 1,
                normalize_space(&callee_text, MAX_CALLEE_CHARS),
                match (arguments, argument) {
                    (Some(list), _) => arguments_of(list, source),
                    (None, Some(one)) => vec![normalize_space(text(one), MAX_CALLEE_CHARS)],
                    (None, None) => Vec::new(),
                },
                setting("call.unless_bound").is_some(),
            ));
        }
    }

    for (owner, base) in bases_of {
        if let Some(entry) = scoped.get_mut(&owner) {
            if !entry.bases.contains(&base) {
                entry.bases.push(base);
            }
        }
    }
    let module = package.unwrap_or_else(|| lang::module_path_in(spec, rel_path, crate_name));
    let definitions_and_scopes = nest(scoped);
    let (definitions, index_of_scoped) = qualify(spec, &module, definitions_and_scopes);

    // Names bound in each scope (assignments and parameters), for calls
    // that are only calls when nothing binds their name (Ruby's bare names).
    let bound: std::collections::HashSet<(Option<usize>, &str)> = assigns
        .iter()
        .map(|(byte, _, name, _)| (innermost(&index_of_scoped, *byte), name.as_str()))
        .collect();
    let mut calls: Vec<Call> = calls
        .into_iter()
        .map(|(byte, line, callee, arguments, unless_bound)| {
            let enclosing = innermost(&index_of_scoped, byte);
            let call = Call {
                line,
                callee_name: last_identifier(&callee).to_string(),
                callee_head: first_identifier(&callee).to_string(),
                callee,
                enclosing,
                arguments,
            };
            (call, unless_bound)
        })
        .filter(|(call, unless_bound)| {
            !unless_bound || !bound.contains(&(call.enclosing, call.callee.as_str()))
        })
        .map(|(call, _)| call)
        .collect();
    calls.sort_by(|a, b| (a.line, &a.callee).cmp(&(b.line, &b.callee)));
    calls.dedup();
    let mut assignments: Vec<Assignment> = assigns
        .into_iter()
        .map(|(byte, line, name, value)| Assignment {
            line,
            name,
            value,
            enclosing: innermost(&index_of_scoped, byte),
        })
        .collect();
    assignments.sort_by(|a, b| (a.line, &a.name).cmp(&(b.line, &b.name)));
    assignments.dedup();

    FileFacts {
        module,
        definitions,
        imports: dedup_imports(spec, raw_imports),
        calls,
        assignments,
        has_syntax_errors: root.has_error(),
        read_as: (spec.name != named).then_some(spec.name),
        line_count: 0,
        symbols_end_line: None,
    }
}

thread_local! {
    /// One parser per language per thread, reused across files.
    static PARSERS: std::cell::RefCell<HashMap<&'static str, Parser>> = Default::default();
}

/// Parses `source`, or only its bytes in `range` (the tree's positions are
/// still the whole text's).
fn parse(
    spec: &LanguageSpec,
    source: &str,
    range: Option<tree_sitter::Range>,
) -> Option<tree_sitter::Tree> {
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = parsers.entry(spec.name).or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&spec.grammar())
                .expect("grammar ABI is supported");
            parser
        });
        // No ranges: the whole text. A range a parser cannot take (never,
        // for one range in the text) leaves the part unread.
        parser.set_included_ranges(range.as_slice()).ok()?;
        parser.parse(source, None)
    })
}

/// `source` with each whole-word occurrence of `words` replaced by spaces
/// (same length, so byte offsets and lines do not move). One pass over the
/// identifiers; borrowed when nothing is blanked.
fn blank_identifiers<'s>(source: &'s str, words: &[&str]) -> std::borrow::Cow<'s, str> {
    if words.is_empty() {
        return std::borrow::Cow::Borrowed(source);
    }
    let bytes = source.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut blanked: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        if is_word(bytes[i]) && (i == 0 || !is_word(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            let word = &source[start..i];
            if words.contains(&word) {
                let out = blanked.get_or_insert_with(|| bytes.to_vec());
                out[start..i].fill(b' ');
            }
        } else {
            i += 1;
        }
    }
    match blanked {
        // Only ASCII identifier bytes were replaced by ASCII spaces.
        Some(out) => std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_default()),
        None => std::borrow::Cow::Borrowed(source),
    }
}

/// How many error and missing nodes a tree has.
fn error_count(tree: &tree_sitter::Tree) -> usize {
    let mut cursor = tree.walk();
    let mut count = 0;
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        // Descend only into subtrees that hold errors.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

/// The node a definition's extent and doc comment hang off: its decorator or export wrapper.
fn wrapper_of<'t>(spec: &LanguageSpec, node: Node<'t>) -> Node<'t> {
    match node.parent() {
        Some(parent) if spec.wrapper_kinds.contains(&parent.kind()) => parent,
        _ => node,
    }
}

/// Sorts definitions and scopes by position and finds each one's enclosing item.
/// Returns `(item, parent index)` in source order.
fn nest(scoped: HashMap<usize, Scoped>) -> Vec<(Scoped, Option<usize>)> {
    let mut items: Vec<Scoped> = scoped.into_values().collect();
    // Outer before inner; ties broken by content, never by node address, so
    // the order (and so every parent link) is the same on every run.
    items.sort_by(|a, b| {
        (a.start_byte, std::cmp::Reverse(a.end_byte), a.kind, &a.name).cmp(&(
            b.start_byte,
            std::cmp::Reverse(b.end_byte),
            b.kind,
            &b.name,
        ))
    });
    let mut out: Vec<(Scoped, Option<usize>)> = Vec::with_capacity(items.len());
    let mut stack: Vec<usize> = Vec::new();
    for item in items {
        while let Some(&top) = stack.last() {
            if out[top].0.end_byte <= item.start_byte {
                stack.pop();
            } else {
                break;
            }
        }
        let parent = stack.last().copied();
        stack.push(out.len());
        out.push((item, parent));
    }
    out
}

/// Where a definition or scope sits, for finding a call's enclosing definition.
struct Span {
    start: usize,
    /// Calls from `start` up to here (decorators) belong to the scope around.
    own_start: usize,
    end: usize,
    /// Index into the definitions; `None` for a pure scope.
    definition: Option<usize>,
    /// Index into the spans.
    parent: Option<usize>,
}

/// Turns nested items into definitions with kinds refined and qualified names.
/// Also returns, for each item in source order, its `(start, end, definition index)`
/// so call sites can find their enclosing definition.
fn qualify(
    spec: &LanguageSpec,
    module: &str,
    items: Vec<(Scoped, Option<usize>)>,
) -> (Vec<Definition>, Vec<Span>) {
    let mut qualified: Vec<String> = Vec::with_capacity(items.len());
    let mut definition_index: Vec<Option<usize>> = Vec::with_capacity(items.len());
    let mut definitions = Vec::new();
    let mut spans = Vec::with_capacity(items.len());
    for (i, (item, parent)) in items.iter().enumerate() {
        let prefix = match parent {
            Some(p) => qualified[*p].clone(),
            None => module.to_string(),
        };
        let mut segments: Vec<&str> = Vec::new();
        if !prefix.is_empty() {
            segments.push(&prefix);
        }
        if let Some(receiver) = &item.receiver {
            segments.push(receiver);
        }
        segments.push(&item.name);
        qualified.push(segments.join(spec.separator));

        let parent_def = parent.and_then(|p| definition_index[p]);
        // The nearest enclosing definition, skipping pure scopes.
        let mut enclosing_def = parent_def;
        let mut cursor = *parent;
        while enclosing_def.is_none() {
            match cursor {
                Some(p) => {
                    enclosing_def = definition_index[p];
                    cursor = items[p].1;
                }
                None => break,
            }
        }
        let index = item.kind.map(|kind| {
            let in_class = match parent {
                Some(p) => items[*p].0.kind.is_none_or(Kind::is_class_like),
                None => false,
            };
            let kind = if kind == Kind::Function && (in_class || item.receiver.is_some()) {
                Kind::Method
            } else {
                kind
            };
            definitions.push(Definition {
                kind,
                name: item.name.clone(),
                qualified_name: qualified[i].clone(),
                signature: item.signature.clone(),
                doc: item.doc.clone().or_else(|| item.leading_doc.clone()),
                start_line: item.start_line,
                end_line: item.end_line,
                parent: enclosing_def,
                bases: item.bases.clone(),
                declaration: item.declaration,
            });
            definitions.len() - 1
        });
        definition_index.push(index);
        // A variable's (or property's) value runs in the scope around it
        // (`registry = Registry()` at module level is the module's call), so
        // it encloses no call.
        let encloses = !matches!(
            item.kind,
            Some(Kind::Variable | Kind::Constant | Kind::Property)
        );
        spans.push(Span {
            start: item.start_byte,
            own_start: item.own_start_byte,
            end: item.end_byte,
            definition: index.filter(|_| encloses),
            parent: *parent,
        });
    }
    (definitions, spans)
}

/// The innermost definition (not scope) whose span contains `byte`.
fn innermost(spans: &[Span], byte: usize) -> Option<usize> {
    // Last item starting at or before `byte`, then up its ancestors until one contains it.
    let mut at = spans.partition_point(|s| s.start <= byte).checked_sub(1);
    while let Some(i) = at {
        let span = &spans[i];
        if span.own_start <= byte && byte < span.end && span.definition.is_some() {
            return span.definition;
        }
        at = span.parent;
    }
    None
}

fn leading_comments(spec: &LanguageSpec, node: Node, source: &str) -> Option<String> {
    if spec.comment_kinds.is_empty() {
        return None;
    }
    let mut expected_row = node.start_position().row;
    let mut sibling = node.prev_sibling();
    let mut comments: Vec<&str> = Vec::new();
    while let Some(s) = sibling {
        let kind = s.kind();
        if spec.doc_skip_kinds.contains(&kind) {
            expected_row = s.start_position().row;
        } else if spec.comment_kinds.contains(&kind) {
            // Adjacent: ends on the line above (or on the same line as) what follows.
            if s.end_position().row + 1 < expected_row {
                break;
            }
            comments.push(s.utf8_text(source.as_bytes()).unwrap_or(""));
            expected_row = s.start_position().row;
        } else {
            break;
        }
        sibling = s.prev_sibling();
    }
    if comments.is_empty() {
        return None;
    }
    comments.reverse();
    let cleaned = clean_comment(&comments.join("\n"));
    (!cleaned.is_empty()).then(|| truncate_chars(&cleaned, MAX_DOC_CHARS))
}

fn clean_comment(raw: &str) -> String {
    let mut lines = Vec::new();
    for line in raw.lines() {
        let mut l = line.trim();
        for prefix in ["///", "//!", "//", "/**", "/*!", "/*", "#", "---", "--"] {
            if let Some(rest) = l.strip_prefix(prefix) {
                l = rest;
                break;
            }
        }
        l = l.strip_suffix("*/").unwrap_or(l);
        let l = l.trim();
        let l = l
            .strip_prefix("* ")
            .unwrap_or(if l == "*" { "" } else { l });
        lines.push(l.to_string());
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.join("\n")
}

fn clean_docstring(raw: &str) -> String {
    let body = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let body = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| body.strip_prefix(q).and_then(|b| b.strip_suffix(q)))
        .unwrap_or(body);
    // Dedent by the smallest indentation of the lines after the first.
    let lines: Vec<&str> = body.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let dedented: Vec<&str> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.trim()
            } else {
                l.get(indent..).unwrap_or("").trim_end()
            }
        })
        .collect();
    truncate_chars(dedented.join("\n").trim(), MAX_DOC_CHARS)
}

/// The text from a definition's start to its body, on one line.
fn signature_of(node: Node, source: &str) -> String {
    let end = node
        .child_by_field_name("body")
        .map(|b| b.start_byte())
        .unwrap_or_else(|| {
            let start = node.start_byte();
            source[start..node.end_byte()]
                .find('\n')
                .map_or(node.end_byte(), |i| start + i)
        });
    let raw = &source[node.start_byte()..end.max(node.start_byte())];
    normalize_space(
        raw.trim_end_matches(['{', ' ', '\n', '\t', '\r']),
        MAX_SIGNATURE_CHARS,
    )
}

fn dedup_imports(spec: &LanguageSpec, raw: Vec<RawImport>) -> Vec<Import> {
    // A statement's bare-module match is dropped when the same statement binds names
    // from that module (`import x from './m'` also matches the side-effect pattern).
    let mut bound: std::collections::HashSet<(usize, &str)> = std::collections::HashSet::new();
    for r in &raw {
        if r.name.is_some() || r.alias.is_some() {
            bound.insert((r.node_id, r.module.as_str()));
        }
    }
    let mut out: Vec<Import> = raw
        .iter()
        .filter(|r| {
            r.name.is_some()
                || r.alias.is_some()
                || !bound.contains(&(r.node_id, r.module.as_str()))
        })
        .map(|r| Import {
            start_line: r.start_line,
            end_line: r.end_line,
            module: r.module.clone(),
            name: r.name.clone(),
            alias: r.alias.clone(),
            binding: import_binding(spec, &r.module, r.name.as_deref(), r.alias.as_deref()),
        })
        .collect();
    out.sort_by(|a, b| {
        (a.start_line, &a.module, &a.name, &a.alias).cmp(&(
            b.start_line,
            &b.module,
            &b.name,
            &b.alias,
        ))
    });
    out.dedup();
    out
}

fn end_line_of(node: Node) -> u32 {
    let end = node.end_position();
    // A node ending at column 0 ends on the previous line (trailing newline).
    let row = if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    };
    row as u32 + 1
}

/// The last identifier of an expression: `open` in `self.store.open`,
/// `new` in `Vec::<u8>::new`, `draw` in `new R(x).draw`.
pub fn last_identifier(expr: &str) -> &str {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let trimmed = expr.trim_end_matches(|c: char| !is_ident(c));
    let start = trimmed
        .char_indices()
        .rev()
        .find(|(_, c)| !is_ident(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    &trimmed[start..]
}

/// The first identifier of an expression: `self` in `self.store.open`.
pub fn first_identifier(expr: &str) -> &str {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let expr = expr.trim_start().trim_start_matches("new ").trim_start();
    let end = expr
        .char_indices()
        .find(|(_, c)| !is_ident(*c))
        .map_or(expr.len(), |(i, _)| i);
    &expr[..end]
}

fn strip_quotes(s: &str) -> &str {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
}

fn normalize_space(s: &str, max_chars: usize) -> String {
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_chars(&joined, max_chars)
}

fn truncate_chars(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Lines as editors count them: a trailing newline does not start a new line.
pub fn count_lines(source: &str) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = source.bytes().filter(|&b| b == b'\n').count();
    (newlines + usize::from(!source.ends_with('\n'))) as u32
}

/// The stored form of a call's arguments: unit-separated, `None` for none.
pub fn encode_arguments(arguments: &[String]) -> Option<String> {
    (!arguments.is_empty()).then(|| arguments.join("\u{1f}"))
}

/// The arguments from their stored form.
pub fn decode_arguments(stored: &str) -> impl Iterator<Item = &str> {
    stored.split('\u{1f}')
}

/// At most this many arguments of a call are kept.
const MAX_ARGUMENTS: usize = 16;

/// A node's position among its parent's named children (comments skipped).
fn position_among_siblings(node: Node) -> usize {
    let Some(parent) = node.parent() else {
        return 0;
    };
    let mut cursor = parent.walk();
    let position = parent
        .named_children(&mut cursor)
        .filter(|n| !n.is_extra())
        .position(|n| n.id() == node.id());
    position.unwrap_or(0)
}

/// A call's arguments as written: `name=value` for a keyword argument (a
/// node with `name` and `value` fields), `*` for a splat or spread.
fn arguments_of(list: Node, source: &str) -> Vec<String> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|n| !n.is_extra())
        .take(MAX_ARGUMENTS)
        .map(|argument| {
            let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
            if argument.kind().contains("splat") || argument.kind().contains("spread") {
                return "*".to_string();
            }
            match (
                argument.child_by_field_name("name"),
                argument.child_by_field_name("value"),
            ) {
                (Some(name), Some(value)) => {
                    format!(
                        "{}={}",
                        text(name),
                        normalize_space(text(value), MAX_CALLEE_CHARS)
                    )
                }
                _ => normalize_space(text(argument), MAX_CALLEE_CHARS),
            }
        })
        .collect()
}
