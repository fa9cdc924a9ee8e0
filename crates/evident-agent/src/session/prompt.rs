//! What the model is shown: the system prompts and the tools offered, kept
//! byte-identical across questions of one shape so a server's prompt cache holds.

use evident_llm::ToolSchema;

use super::state::*;
use crate::tools::ToolContext;

impl Session<'_> {
    /// The tools offered now: every tool with every option, or the core ones
    /// (plus what the question's shape needs) with only their required
    /// arguments, and `more_tools`. The same question shape gets the same
    /// bytes, so a server's prompt cache holds across questions and sessions.
    pub(super) fn offered(&self) -> Vec<ToolSchema> {
        if self.all_tools {
            return self.registry.schemas();
        }
        let mut names: Vec<&str> = CORE_TOOLS.to_vec();
        names.extend(self.intent.extra_tools());
        if !self.context.skills.is_empty() {
            names.push("activate_skill");
        }
        let mut tools = self.registry.compact_schemas(&names);
        tools.push(ToolSchema {
            name: MORE_TOOLS.into(),
            description: "List the other tools and options (path and kind filters, git diff, documents) and offer them from then on.".into(),
            parameters: serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false}),
        });
        tools
    }

    pub(super) fn tools_tokens(&self) -> usize {
        serde_json::to_string(&self.offered()).map_or(0, |s| s.len()) * 2 / 7
    }
}

/// The system prompt of the last call, which has no tools.
pub(super) const LAST_CALL_INSTRUCTIONS: &str = "You answer a question about a code repository from the evidence the tools found, and nothing else. \
     Cite each fact as path:line from the evidence. If the evidence does not answer the question, say what it shows and what is missing. Be brief.";

/// Whether a reply says anything once markup tags (and a `<tools>` block,
/// which small models sometimes echo from their prompt) are taken out.
pub(super) fn has_words(text: &str) -> bool {
    let text = match (text.find("<tools>"), text.rfind("</tools>")) {
        (Some(start), Some(end)) if start < end => {
            format!("{}{}", &text[..start], &text[end + "</tools>".len()..])
        }
        _ => text.to_string(),
    };
    let mut inside_tag = false;
    text.chars().any(|c| match c {
        '<' => {
            inside_tag = true;
            false
        }
        '>' => {
            inside_tag = false;
            false
        }
        c => !inside_tag && c.is_alphanumeric(),
    })
}

/// The system prompt: short (a 1.5B model reads it at every step, on a CPU)
/// and the same bytes for every question in a repository, so that a
/// server's prompt cache holds.
pub(super) fn system_prompt(context: &ToolContext) -> String {
    let mut prompt = String::from(
        "You answer questions about a code repository, which you can read only through the tools. \
         Never guess file names or line numbers. Give the file and line of each fact, as the tool results show them. \
         When the results answer the question, answer briefly without calling a tool; never repeat a call.\n",
    );
    if !context.skills.is_empty() {
        prompt.push_str("Skills (load one with activate_skill when it fits the question):\n");
        for skill in &context.skills {
            prompt.push_str(&format!("- {}: {}\n", skill.name, skill.description));
        }
    }
    prompt
}
