//! The graph's row types, shared by the reads and writes beside them.

/// A definition as resolution needs it (`name` borrowed from the row, to intern).
pub(crate) struct SymbolRow<'a> {
    pub id: i64,
    pub file: i64,
    pub parent: Option<i64>,
    pub kind: &'a str,
    pub name: &'a str,
    /// Only for methods outside any class (Rust `impl`, Go receivers, C++
    /// `void Foo::bar() {}` in a namespace).
    pub owner_path: Option<String>,
    /// One base class per line.
    pub bases: Option<String>,
    pub declaration: bool,
    pub start_line: u32,
}

pub(crate) struct ImportRow {
    pub file: i64,
    pub module: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub binding: Option<String>,
    pub target: Option<String>,
}

/// A call site to resolve.
pub(crate) struct CallSite {
    pub id: i64,
    pub file: i64,
    pub enclosing: Option<i64>,
    pub callee: String,
    pub line: u32,
}

/// A call with its stored arguments (`encode_arguments`).
pub(crate) type ArgumentSite = (CallSite, Option<String>);

/// How [`targets`] matches a symbol.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TargetMatch {
    /// By name or by full qualified name (both indexed).
    NameOrQualified,
    /// By qualified-name suffix (`Store.open`, `store::open`), among the
    /// definitions whose name is the suffix's last (a qualified name ends
    /// in its definition's name).
    QualifiedSuffix,
}

/// A call made inside a definition, and what it resolves to.
pub(crate) struct CallInside {
    pub path: String,
    pub line: u32,
    pub callee: String,
    /// `qualified name (confidence)`, comma-separated; `None` when unresolved.
    pub resolved: Option<String>,
}

/// A resolved call into one of a frontier's definitions, as the narrow
/// `edges_callee` index holds it: the call's text is read only for the sites
/// that are listed ([`call_text`]).
pub(crate) struct IncomingCall {
    pub callee: i64,
    pub file: i64,
    pub line: u32,
    pub call: i64,
    pub confidence: String,
    pub enclosing: Option<i64>,
}

/// One definition, by id.
pub(crate) struct DefinitionRow {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub kind: String,
    pub name: String,
    pub qualified: String,
}

/// One resolved edge of the whole graph, with both ends described.
pub(crate) struct EdgeRow {
    pub caller: String,
    pub callee: String,
    pub path: String,
    pub line: u32,
    pub confidence: String,
    pub callee_kind: String,
    pub callee_path: String,
    pub callee_start: u32,
    /// `None` for module-level code.
    pub caller_kind: Option<String>,
    pub caller_start: Option<u32>,
}

/// A call on one line: its text and name, and a definition it resolves to.
pub(crate) struct CallOnLine {
    pub callee: String,
    pub callee_name: String,
    pub target: Option<i64>,
    pub confidence: Option<String>,
}

/// A definition visible by name from a line of its file, and how deep its scope is.
pub(crate) struct InScope {
    pub id: i64,
    /// The first line of the enclosing definition (0 at module level): larger is innermost.
    pub scope_start: u32,
    pub parent_kind: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: String,
    pub kind: String,
}

/// A call site nothing resolved, with where it is.
pub(crate) struct UnresolvedCall {
    pub path: String,
    pub line: u32,
    pub callee: String,
    /// The enclosing definition's qualified name, or the file's module.
    pub caller: String,
}

/// Which definitions [`for_each_symbol`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SymbolFilter<'a> {
    All,
    Id(i64),
    File(i64),
    Name(&'a str),
    /// Those that name bases (classes; a partial index keeps this cheap).
    WithBases,
    /// Those that name a base whose last identifier is this.
    BaseNamed(&'a str),
    /// The parents of the definitions with this name.
    ParentsOfNamed(&'a str),
}

/// `('class', 'struct', …)`: the class-like kinds as an SQL list, from
/// `Kind::is_class_like`, the one place that says which kinds they are.
pub(crate) fn class_like_kinds() -> &'static str {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SQL.get_or_init(|| {
        let kinds: Vec<String> = crate::evidence::Kind::ALL
            .iter()
            .filter(|k| k.is_class_like())
            .map(|k| format!("'{}'", k.as_str()))
            .collect();
        format!("({})", kinds.join(", "))
    })
}

pub(crate) fn call_site(r: &rusqlite::Row<'_>) -> rusqlite::Result<CallSite> {
    Ok(CallSite {
        id: r.get(0)?,
        file: r.get(1)?,
        enclosing: r.get(2)?,
        callee: r.get(3)?,
        line: r.get(4)?,
    })
}

/// A definition a graph query starts from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    /// The row id: the index's own, never shown.
    #[serde(skip)]
    pub id: i64,
    pub path: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub start_line: u32,
    pub end_line: u32,
}
