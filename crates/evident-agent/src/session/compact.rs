//! Compaction: when the conversation outgrows the context, older
//! exploration becomes a summary, and cited evidence stays verbatim.

use evident_index::Evidence;
use evident_llm::{run_turn, ChatRequest, Message, Protocol, Role};

use super::events::AgentEvent;
use super::state::*;
use crate::budget;
use crate::grounding::{self};

pub(super) fn estimate_tokens(messages: &[Message]) -> usize {
    // About 3.5 bytes per token for code and English; erring high is safe.
    messages.iter().map(|m| m.content.len() + 16).sum::<usize>() * 2 / 7
}

impl Session<'_> {
    /// Replaces older exploration by a summary, keeping the question, loaded
    /// skills and every cited piece of evidence verbatim.
    pub(super) fn compact(&mut self, sink: &mut dyn FnMut(&AgentEvent)) {
        let before = estimate_tokens(&self.messages);
        let question_at = self.question_at;
        let exploration: Vec<Message> = self.messages[question_at + 1..].to_vec();
        if exploration.is_empty() {
            return;
        }
        let transcript: String = exploration
            .iter()
            .map(|m| format!("[{:?}] {}\n", m.role, m.content))
            .collect::<String>();
        let (transcript, _) = budget::cut(
            &transcript,
            (self.limits.context_tokens as usize * 2).max(2000),
        );
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![
                Message::system("Summarise this code exploration in at most 15 lines: what was looked up and what was found, with every path:line that matters. No new claims."),
                Message::user(format!("Question: {}\n\nExploration:\n{transcript}", self.question)),
            ],
            protocol: Protocol::Native,
            temperature: Some(0.0),
            max_tokens: Some(400),
            ..Default::default()
        };
        let (summary, by) = match run_turn(self.client, &request, &self.cancel, &mut |_| {}) {
            Ok(reply) if !reply.content.trim().is_empty() && reply.tool_calls.is_empty() => {
                (reply.content.trim().to_string(), "model")
            }
            _ => (self.fallback_summary(), "fallback"),
        };
        // Evidence the model cited in its own words stays verbatim.
        let said: String = exploration
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let cited: Vec<&Evidence> = self
            .gathered
            .iter()
            .filter(|ev| {
                grounding::citations(&said).iter().any(|(_, path, a, _)| {
                    *path == ev.path && ev.start_line <= *a && *a <= ev.end_line
                })
            })
            .collect();
        let mut note = format!(
            "Summary of the exploration so far (older tool results were compacted):\n{summary}\n"
        );
        if !cited.is_empty() {
            note.push_str("\nEvidence cited so far, verbatim:\n");
            for ev in cited {
                note.push_str(&format!(
                    "{} {} {}\n{}\n",
                    ev.location(),
                    ev.kind,
                    ev.name,
                    ev.snippet
                ));
            }
        }
        for skill in &self.skills_loaded {
            note.push_str(&format!("\nSkill instructions loaded:\n{skill}\n"));
        }
        self.messages.truncate(question_at + 1);
        self.messages.push(Message::user(note));
        let after = estimate_tokens(&self.messages);
        sink(&AgentEvent::Compacted {
            tokens_before: before,
            tokens_after: after,
            by: by.into(),
        });
    }

    /// Without the model: the evidence headers, one line each.
    pub(super) fn fallback_summary(&self) -> String {
        let mut lines: Vec<String> = self
            .gathered
            .iter()
            .map(|ev| format!("- {} {} {}", ev.location(), ev.kind, ev.name))
            .collect();
        lines.dedup();
        if lines.is_empty() {
            "Tools were called; they found nothing.".into()
        } else {
            format!("Tools found:\n{}", lines.join("\n"))
        }
    }
}
