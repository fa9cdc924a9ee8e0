//! The Evidence record: the one shape every query returns.

use serde::{Deserialize, Serialize};

/// What a piece of evidence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Function,
    Method,
    Class,
    Struct,
    Enum,
    Trait,
    Interface,
    Module,
    Constant,
    Variable,
    Type,
    Union,
    Macro,
    Namespace,
    Property,
    Protocol,
    Object,
    Import,
    Call,
    Chunk,
    Doc,
    DiffHunk,
    File,
}

impl Kind {
    pub const ALL: [Kind; 23] = [
        Kind::Function,
        Kind::Method,
        Kind::Class,
        Kind::Struct,
        Kind::Enum,
        Kind::Trait,
        Kind::Interface,
        Kind::Module,
        Kind::Constant,
        Kind::Variable,
        Kind::Type,
        Kind::Union,
        Kind::Macro,
        Kind::Namespace,
        Kind::Property,
        Kind::Protocol,
        Kind::Object,
        Kind::Import,
        Kind::Call,
        Kind::Chunk,
        Kind::Doc,
        Kind::DiffHunk,
        Kind::File,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Trait => "trait",
            Kind::Interface => "interface",
            Kind::Module => "module",
            Kind::Constant => "constant",
            Kind::Variable => "variable",
            Kind::Type => "type",
            Kind::Union => "union",
            Kind::Macro => "macro",
            Kind::Namespace => "namespace",
            Kind::Property => "property",
            Kind::Protocol => "protocol",
            Kind::Object => "object",
            Kind::Import => "import",
            Kind::Call => "call",
            Kind::Chunk => "chunk",
            Kind::Doc => "doc",
            Kind::DiffHunk => "diff_hunk",
            Kind::File => "file",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// Kinds whose functions are methods (`def` inside `class`, `fn` inside `impl`).
    pub fn is_class_like(self) -> bool {
        matches!(
            self,
            Kind::Class
                | Kind::Struct
                | Kind::Union
                | Kind::Enum
                | Kind::Trait
                | Kind::Interface
                | Kind::Protocol
                | Kind::Object
        )
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One cited piece of a repository: a relative `/`-separated path, 1-based
/// inclusive lines, and the file's real text for those lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub kind: Kind,
    pub name: String,
    pub snippet: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualified_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<String>,
}

impl Evidence {
    pub fn new(
        path: impl Into<String>,
        start_line: u32,
        end_line: u32,
        kind: Kind,
        name: impl Into<String>,
        snippet: impl Into<String>,
    ) -> Evidence {
        Evidence {
            path: path.into(),
            start_line,
            end_line,
            kind,
            name: name.into(),
            snippet: snippet.into(),
            qualified_name: None,
            score: None,
            depth: None,
            via: None,
            doc_id: None,
            reason: None,
            confidence: None,
        }
    }

    /// Where the record is, as every door writes it: `path:start-end`.
    pub fn location(&self) -> String {
        format!("{}:{}-{}", self.path, self.start_line, self.end_line)
    }
}
