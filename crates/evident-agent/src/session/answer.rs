//! The session's first and last steps for one question: deciding what it
//! asks (entities, intent, the planned lookups) and composing the answer
//! from the model's prose and the index's facts.

use std::time::Instant;

use evident_index::Index;
use evident_llm::{run_turn, ChatRequest, Message, Protocol, ToolCall, Usage};
use serde_json::Value;

use super::events::AgentEvent;
use super::prompt::{has_words, LAST_CALL_INSTRUCTIONS};
use super::state::*;
use super::tool_step::{call_key, call_text};
use crate::budget;
use crate::facts;
use crate::intent::{self, Intent};
use crate::link::Entity;
use crate::prefetch::{self, Plan};
use crate::render::{evidence_digest, render_for_model};
use crate::tools::Approval;

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

    /// Runs the question's obvious lookups (see `prefetch`) through the same
    /// validation as the model's calls. Returns their results for the first
    /// prompt and whether the shape's own tool found evidence (see
    /// `Plan::answering`), or `None` when nothing was found.
    pub(super) fn prefetch(
        &mut self,
        plan: prefetch::Plan,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Option<(String, bool)> {
        let mut answering = false;
        let budget = budget::result_budget(self.limits.context_tokens);
        let mut text = String::new();
        let mut ran = 0;
        for (i, (name, arguments)) in plan.calls.iter().enumerate() {
            let call = ToolCall {
                index: i,
                id: None,
                name: name.to_string(),
                arguments: Value::Object(arguments.clone()),
                arguments_raw: String::new(),
            };
            // Only automatic tools run unasked: a tool the policy wants approved waits for the model.
            let valid = match self
                .registry
                .validate(&call, &self.context.root, &self.config)
            {
                Ok(valid) if valid.approval == Approval::Auto => valid,
                _ => continue,
            };
            let started = Instant::now();
            let output = valid.tool.run(self.context, &valid.arguments);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            let key = call_key(name, &valid.arguments);
            let Ok(output) = output else { continue };
            if plan.answering && self.intent.prints_facts() {
                match &mut self.facts {
                    Some((summary, found)) if i == 1 && plan.twin => {
                        summary.push_str(&format!("; {}", output.summary));
                        found.extend(output.evidence.iter().cloned());
                    }
                    _ if i == 0 => {
                        self.facts = Some((output.summary.clone(), output.evidence.clone()))
                    }
                    _ => {}
                }
            }
            if output.evidence.is_empty() {
                continue;
            }
            let (result, cut) = budget::cut(&render_for_model(&output), budget);
            // Reported only when it found something: a lookup that found
            // nothing is left out of the prompt, and of the trace.
            sink(&AgentEvent::ToolProposed {
                round: 0,
                index: i,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            sink(&AgentEvent::ToolFinished {
                round: 0,
                index: i,
                name: call.name.clone(),
                summary: output.summary.clone(),
                results: output.evidence.len(),
                bytes: result.len(),
                cut,
                error: None,
                ms,
            });
            answering |= i == 0 && plan.answering;
            let written = call_text(name, &valid.arguments);
            text.push_str(&format!("{written}:\n{result}\n"));
            self.findings.push(format!("{written}: {}", output.summary));
            self.done_calls.push((key, 0, output.summary.clone()));
            self.gathered.extend(output.evidence);
            ran += 1;
        }
        self.stats.prefetched = ran;
        sink(&AgentEvent::Prefetched {
            intent: plan.intent(),
            decided_by: plan.decision.by,
            subject: plan.subject().map(|s| s.key.clone()),
            calls: ran,
        });
        (ran > 0).then(|| {
            (
                format!("Results of lookups evident ran for this question:\n\n{text}"),
                answering,
            )
        })
    }

    /// One last model call with tools withdrawn: the question and the
    /// evidence gathered, to be answered from. `None` when it gives no words.
    pub(super) fn last_answer(
        &mut self,
        why: &str,
        round: u32,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Option<String> {
        sink(&AgentEvent::LastCall { why: why.into() });
        let digest_bytes = (self.limits.context_tokens as usize * 2).clamp(1500, 12_000);
        let digest = evidence_digest(&self.findings, &self.gathered, digest_bytes);
        let evidence = if digest.trim().is_empty() {
            "(the tools found nothing)".to_string()
        } else {
            digest
        };
        // Held to `{"response": ...}` under constrained; plain text otherwise.
        let protocol = if self.protocol == Protocol::Constrained {
            Protocol::Constrained
        } else {
            Protocol::Native
        };
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![
                Message::system(LAST_CALL_INSTRUCTIONS),
                Message::user(format!(
                    "What the tools found:\n{evidence}\nQuestion: {}\nAnswer now from this evidence, citing path:line.",
                    self.question
                )),
            ],
            protocol,
            temperature: Some(0.0),
            max_tokens: Some(MAX_REPLY_TOKENS),
            ..Default::default()
        };
        sink(&AgentEvent::ModelStarted { round });
        let reply = run_turn(self.client, &request, &self.cancel, &mut |_| {}).ok()?;
        self.count(round, &reply.usage, sink);
        let text = reply.content.trim();
        (reply.tool_calls.is_empty() && has_words(text)).then(|| text.to_string())
    }

    /// The answer when no model gave one: what the tools found, each with its lines.
    pub(super) fn evidence_list(&self, reason: &FinishReason) -> String {
        let why = match reason {
            FinishReason::Error(error) => error.to_string(),
            other => other.name().replace('_', " "),
        };
        if self.findings.is_empty() && self.gathered.is_empty() {
            return format!("No answer ({why}), and no tool found anything.");
        }
        let mut text = format!("No answer from the model ({why}). What the tools found:\n");
        for finding in &self.findings {
            text.push_str(&format!("- {finding}\n"));
        }
        let mut listed: Vec<String> = Vec::new();
        for ev in &self.gathered {
            let line = format!("- {}", crate::render::header(ev));
            if !listed.contains(&line) && listed.len() < 12 {
                listed.push(line);
            }
        }
        text.push_str(&listed.join("\n"));
        text.trim_end().to_string()
    }
}
