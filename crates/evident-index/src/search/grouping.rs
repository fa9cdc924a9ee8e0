//! How results are grouped: by chunk, file or definition.

/// What one result stands for. The doors (CLI, agent, MCP) default to a
/// file: "where do I look" is the first question, one result per file saves
/// a model's context, and it ranks best on the localization benchmark
/// (BENCHMARKS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchGroup {
    /// A chunk: a definition's body (or a window of it), code between definitions.
    Chunk,
    /// A file: the chunks of one file together ("where do I look").
    #[default]
    File,
    /// A definition: the windows of one long definition together.
    Definition,
}

impl SearchGroup {
    pub fn parse(text: &str) -> Option<SearchGroup> {
        match text {
            "chunk" => Some(SearchGroup::Chunk),
            "file" => Some(SearchGroup::File),
            "definition" => Some(SearchGroup::Definition),
            _ => None,
        }
    }
}
