//! The session's first and last steps for one question: deciding what it
//! asks (entities, intent, the planned lookups) and composing the answer
//! from the model's prose and the index's facts.

use evident_index::Index;
use evident_llm::Usage;

use super::{AgentEvent, Session};
use crate::facts;
use crate::intent::{self, Intent};
use crate::link::Entity;
use crate::prefetch::{self, Plan};

impl Session<'_> {
    /// Links the question, decides its intent (asking the model only when
    /// the rules are unsure, and only when evident may look things up
    /// first) and plans the lookups.
    pub(super) fn plan(&mut self, question: &str, sink: &mut dyn FnMut(&AgentEvent)) -> Plan {
        let index = Index::open(&self.context.root).ok();
        let context = self.context;
        let may_ask = self.limits.prefetch;
        let mut used: Option<Usage> = None;
        let (decision, entities) = {
            let client = self.client;
            let model = self.model.clone();
            let cancel = self.cancel.clone();
            let mut ask = |entities: &[Entity]| {
                if !may_ask {
                    return None;
                }
                let (intent, subject, usage) =
                    intent::ask_model(client, &model, question, entities, &cancel)?;
                used = Some(usage);
                Some((intent, subject))
            };
            prefetch::decide(question, context, index.as_ref(), &mut ask)
        };
        if let Some(usage) = used {
            self.count(0, &usage, sink);
        }
        self.stats.intent = Some(decision.intent);
        self.stats.intent_from = Some(decision.by);
        prefetch::plan(question, decision, entities)
    }

    /// The answer as the model's prose, without sentences that tell the user
    /// to run a tool, and what evident adds under it: the index's facts for
    /// a structural question, then what the prose says that the facts and
    /// the evidence do not bear out.
    pub(super) fn with_facts(&self, answer: &str) -> (String, String) {
        let tools: Vec<String> = self
            .registry
            .schemas()
            .into_iter()
            .map(|t| t.name.to_lowercase())
            .collect();
        let (prose, removed) = facts::without_tool_talk(answer, &tools);
        let Some((summary, found)) = &self.facts else {
            // No facts to stand in: the prose stays, less what told the user
            // to run a tool, unless nothing else is left.
            return if removed && !prose.is_empty() {
                let note = "\n(evident: a sentence that told you to run a tool was taken out)";
                (prose, note.to_string())
            } else {
                (answer.to_string(), String::new())
            };
        };
        let mut added = String::new();
        if !prose.is_empty() {
            added.push_str("\n\n");
        }
        added.push_str(&facts::block(summary));
        let mut notes = facts::contradictions(&prose, found, &self.gathered, &self.question);
        if removed {
            notes.push("a sentence that told you to run a tool was taken out".into());
        }
        for note in notes {
            added.push_str(&format!("\n(evident: {note})"));
        }
        (prose, added)
    }

    /// Whether this question is answered with no repository at all.
    pub(super) fn is_general(&self) -> bool {
        self.intent == Intent::General
    }
}
