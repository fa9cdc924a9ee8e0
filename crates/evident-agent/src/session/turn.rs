//! One question, as the state machine
//! `Model → Tools → (Compact) → Model … → Finish`, over a [`Turn`] that holds
//! what the question has used so far.

use std::time::Instant;

use evident_index::Index;
use evident_llm::{run_turn, ChatRequest, Event, Message, Reply, Usage};

use super::approval::Approver;
use super::compact::estimate_tokens;
use super::events::AgentEvent;
use super::prompt::has_words;
use super::state::{
    AnsweredBy, FinishReason, Outcome, Session, SessionError, Stats, Step, ANSWER_FROM_RESULTS,
    MAX_REPLY_TOKENS,
};
use super::tool_step::ToolStepEnd;
use crate::grounding::{self, Support};

/// What one question has used and found so far.
struct Turn {
    started: Instant,
    rounds: u32,
    tool_calls: usize,
    answer: String,
    /// The model was asked once more after a reply with no words.
    nudged: bool,
    /// Why the tool phase ended without an answer, when one last call may
    /// still give one.
    last_call: Option<String>,
}

impl Session<'_> {
    /// Asks one question (a follow-up in a chat keeps the history).
    pub fn ask(
        &mut self,
        question: &str,
        approver: &mut dyn Approver,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Outcome {
        let mut turn = Turn {
            started: Instant::now(),
            rounds: 0,
            tool_calls: 0,
            answer: String::new(),
            nudged: false,
            last_call: None,
        };
        let mut step = self.begin(question, sink);
        let reason = loop {
            step = match step {
                Step::Finish(reason) => break reason,
                Step::Model => self.model_phase(&mut turn, sink),
                Step::Tools(reply) => self.tools_phase(&mut turn, &reply, approver, sink),
                Step::Compact => {
                    self.compact(sink);
                    Step::Model
                }
            };
        };
        self.finish(turn, reason, sink)
    }

    /// Resets the per-question state, runs the prefetch and writes the
    /// question's message. The first step is the model's, unless the
    /// question does not fit.
    fn begin(&mut self, question: &str, sink: &mut dyn FnMut(&AgentEvent)) -> Step {
        self.question = question.to_string();
        self.stats = Stats::default();
        self.done_calls.clear();
        self.findings.clear();
        self.repeats_in_a_row = 0;
        let plan = self.plan(question, sink);
        self.intent = plan.intent();
        self.facts = None;
        let mut first_message = question.to_string();
        // The shape's own tool found the evidence: the first model call is
        // offered no tools, only the question and that evidence (one call,
        // and a prompt without tool schemas). Tools come back if it does not answer.
        self.answer_first = false;
        if self.limits.prefetch && !self.is_general() {
            if let Some((looked_up, answering)) = self.prefetch(plan, sink) {
                self.answer_first = answering;
                let then = if answering {
                    ANSWER_FROM_RESULTS.to_string()
                } else {
                    format!(
                        "{ANSWER_FROM_RESULTS} Call a tool only if they do not answer the question."
                    )
                };
                first_message = format!("{looked_up}\nQuestion: {question}\n{then}");
            }
        }
        self.question_at = self.messages.len();
        self.messages.push(Message::user(first_message));
        // The request must fit before anything is sent.
        let first = estimate_tokens(&self.messages) + self.tools_tokens() + 512;
        if first > self.limits.context_tokens as usize {
            return Step::Finish(FinishReason::Error(SessionError::QuestionTooBig {
                needed: first,
                context: self.limits.context_tokens,
            }));
        }
        Step::Model
    }

    /// One model call: an answer finishes, proposed calls go to the tools,
    /// a reply without words is asked for once more.
    fn model_phase(&mut self, turn: &mut Turn, sink: &mut dyn FnMut(&AgentEvent)) -> Step {
        if self.cancel.is_cancelled() {
            return Step::Finish(FinishReason::Cancelled);
        }
        if turn.started.elapsed() > self.limits.wall_time {
            let why = SessionError::WallTime {
                seconds: self.limits.wall_time.as_secs(),
            };
            turn.last_call = Some(why.to_string());
            return Step::Finish(FinishReason::Error(why));
        }
        sink(&AgentEvent::ModelStarted {
            round: turn.rounds + 1,
        });
        let reply = match self.model_step(turn.rounds + 1, sink) {
            Ok(reply) if reply.tool_calls.is_empty() && reply.protocol_errors.is_empty() => reply,
            Ok(reply) => return Step::Tools(Box::new(reply)),
            Err(_) if self.cancel.is_cancelled() => return Step::Finish(FinishReason::Cancelled),
            Err(e) => return Step::Finish(FinishReason::Error(e)),
        };
        self.messages.push(self.protocol.assistant_message(&reply));
        if has_words(&reply.content) {
            turn.answer = reply.content.trim().to_string();
            return Step::Finish(FinishReason::Answered);
        }
        if turn.nudged {
            let why = SessionError::NoAnswer;
            turn.last_call = Some(why.to_string());
            return Step::Finish(FinishReason::Error(why));
        }
        // Small models sometimes reply with nothing (or bare markup such as
        // `<tools></tools>`): ask once more.
        turn.nudged = true;
        self.messages.push(Message::user(
            "error: your reply had no answer. Answer the question from the tool results, \
             citing path:line, or call a tool.",
        ));
        Step::Model
    }

    /// One tool step, within the round limit; compacts when the
    /// conversation nears the context's size.
    fn tools_phase(
        &mut self,
        turn: &mut Turn,
        reply: &Reply,
        approver: &mut dyn Approver,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Step {
        if turn.rounds >= self.limits.rounds {
            turn.last_call = Some(format!(
                "the model still asked for tools after {} rounds",
                self.limits.rounds
            ));
            return Step::Finish(FinishReason::RoundLimit);
        }
        turn.rounds += 1;
        turn.tool_calls += reply.tool_calls.len();
        match self.tool_step(turn.rounds, reply, approver, sink) {
            ToolStepEnd::Denied => Step::Finish(FinishReason::Denied),
            ToolStepEnd::Cancelled => Step::Finish(FinishReason::Cancelled),
            ToolStepEnd::Repeating => {
                turn.last_call = Some("the model asked again for calls it had already made".into());
                Step::Finish(FinishReason::Repeated)
            }
            ToolStepEnd::Done => {
                // Tool descriptions take context space too.
                let used = estimate_tokens(&self.messages) + self.tools_tokens();
                if used * 10 > self.limits.context_tokens as usize * 8 {
                    Step::Compact
                } else {
                    Step::Model
                }
            }
        }
    }

    /// The answer (never nothing), what evident adds under it, its citations
    /// checked, and the `Finished` event.
    fn finish(
        &mut self,
        mut turn: Turn,
        reason: FinishReason,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Outcome {
        let mut answered_by = AnsweredBy::Model;
        if turn.answer.is_empty() {
            let from_model = match &turn.last_call {
                Some(why) if !self.cancel.is_cancelled() => {
                    self.last_answer(why, turn.rounds + 1, sink)
                }
                _ => None,
            };
            (turn.answer, answered_by) = match from_model {
                Some(text) => (text, AnsweredBy::LastCall),
                None => (self.evidence_list(&reason), AnsweredBy::EvidenceList),
            };
        }
        let (answer, appended) = if answered_by == AnsweredBy::EvidenceList {
            (turn.answer, String::new())
        } else {
            self.with_additions(&turn.answer)
        };
        let index = Index::open(&self.context.root).ok();
        let mut citations = grounding::check(&answer, &self.gathered, index.as_ref());
        for citation in &mut citations {
            citation.added = appended.contains(&citation.text);
        }
        let unsupported = citations
            .iter()
            .filter(|c| c.support != Support::Supported)
            .count();
        sink(&AgentEvent::Finished {
            reason: reason.clone(),
            rounds: turn.rounds,
            tool_calls: turn.tool_calls,
            answer: answer.clone(),
            appended,
            answered_by,
            citations: citations.clone(),
            unsupported,
            stats: self.stats.clone(),
        });
        Outcome {
            reason,
            answer,
            answered_by,
            citations,
            rounds: turn.rounds,
            tool_calls: turn.tool_calls,
            stats: self.stats.clone(),
        }
    }

    /// The answer with what evident adds under the model's words (the
    /// facts, notes, lines), and that addition alone: a terminal that
    /// streamed the words prints only it.
    fn with_additions(&self, answer: &str) -> (String, String) {
        let (prose, mut appended) = self.with_facts(answer);
        let mut answer = format!("{prose}{appended}");
        let lines = grounding::attach(&answer, &self.gathered);
        if !lines.is_empty() {
            let text = format!("\n\n(lines added by evident: {})", lines.join(", "));
            answer.push_str(&text);
            appended.push_str(&text);
        }
        (answer, appended)
    }

    fn model_step(
        &mut self,
        round: u32,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> Result<Reply, SessionError> {
        let tools = if std::mem::take(&mut self.answer_first) || self.is_general() {
            Vec::new()
        } else {
            self.offered()
        };
        let request = ChatRequest {
            model: self.model.clone(),
            messages: self.messages.clone(),
            tools,
            protocol: self.protocol,
            temperature: Some(0.0),
            max_tokens: Some(MAX_REPLY_TOKENS),
            ..Default::default()
        };
        let outcome = run_turn(self.client, &request, &self.cancel, &mut |event| {
            if let Event::Content(text) = event {
                sink(&AgentEvent::ModelDelta { text });
            }
        });
        let reply = outcome.map_err(|e| SessionError::Model {
            kind: e.error.kind(),
            message: e.error.to_string(),
        })?;
        self.count(round, &reply.usage, sink);
        if reply.cut_looping {
            sink(&AgentEvent::ModelLooped { round });
        }
        Ok(reply)
    }

    /// Adds a model call's counts to the question's and reports them.
    pub(super) fn count(&mut self, round: u32, usage: &Usage, sink: &mut dyn FnMut(&AgentEvent)) {
        self.stats.model_calls += 1;
        self.stats.prompt_tokens += usage.prompt_tokens.unwrap_or(0);
        self.stats.completion_tokens += usage.completion_tokens.unwrap_or(0);
        self.stats.prompt_ms += usage.prompt_ms.unwrap_or(0);
        sink(&AgentEvent::ModelFinished {
            round,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            prompt_ms: usage.prompt_ms,
            total_ms: usage.total_ms,
        });
    }
}
