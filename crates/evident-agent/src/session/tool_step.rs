//! The tool step: a batch of proposed calls validated whole, repeats
//! answered without running, approved once, run in parallel, and answered
//! in call order, one result per call.

use std::time::Instant;

use evident_llm::{Message, Reply, ToolCall};
use serde_json::{Map, Value};

use super::approval::{Approver, Decision};
use super::events::AgentEvent;
use super::state::*;
use crate::budget;
use crate::registry::{Registry, Validated};
use crate::render::render_for_model;
use crate::tools::{Approval, ToolError, ToolOutput};

/// One batch of proposed calls on its way through the step.
struct Batch<'r, 'g> {
    round: u32,
    reply: &'r Reply,
    /// Per call, its answer once known (rejected, repeated, run).
    results: Vec<Option<String>>,
    /// Per call that will run: its normalised key and how it is written.
    pending: Vec<Option<(String, String)>>,
    /// The calls that will run, by index, validated.
    runnable: Vec<(usize, Validated<'g>)>,
}

type Timed = (Result<ToolOutput, ToolError>, f64);

impl<'g> Session<'g> {
    pub(super) fn tool_step(
        &mut self,
        round: u32,
        reply: &Reply,
        approver: &mut dyn Approver,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> ToolStepEnd {
        self.messages.push(self.protocol.assistant_message(reply));
        // Calls the model wrote but that could not be read get an answer too.
        for error in &reply.protocol_errors {
            self.messages.push(Message::user(format!(
                "error: your tool call could not be read ({}): {}. Write it again as the instructions say.",
                error.message, error.raw
            )));
        }
        let mut batch = Batch {
            round,
            reply,
            results: vec![None; reply.tool_calls.len()],
            pending: vec![None; reply.tool_calls.len()],
            runnable: Vec::new(),
        };
        // Validate the whole batch first; calls made before are answered, not run again.
        for (i, call) in reply.tool_calls.iter().enumerate() {
            self.check_call(&mut batch, i, call, sink);
        }
        if !self.approve_batch(&mut batch, approver, sink) {
            return ToolStepEnd::Denied;
        }
        if self.cancel.is_cancelled() {
            return ToolStepEnd::Cancelled;
        }
        for (i, v) in &batch.runnable {
            sink(&AgentEvent::ToolStarted {
                round,
                index: *i,
                name: v.tool.name().into(),
            });
        }
        for (i, output) in self.run_batch(&batch.runnable) {
            let text = self.record_output(&mut batch, i, output, sink);
            batch.results[i] = Some(text);
        }
        for (call, result) in reply.tool_calls.iter().zip(batch.results) {
            let result = result.unwrap_or_else(|| "error: not run".into());
            self.messages
                .push(self.protocol.tool_result_message(call, &result));
        }
        if self.repeats_in_a_row >= MAX_REPEATS_IN_A_ROW {
            return ToolStepEnd::Repeating;
        }
        ToolStepEnd::Done
    }

    /// One proposed call: `more_tools` answered at once, past the per-round
    /// limit skipped, invalid rejected, a repeat answered with what it found
    /// before, the rest queued to run.
    fn check_call(
        &mut self,
        batch: &mut Batch<'_, 'g>,
        i: usize,
        call: &ToolCall,
        sink: &mut dyn FnMut(&AgentEvent),
    ) {
        let round = batch.round;
        sink(&AgentEvent::ToolProposed {
            round,
            index: i,
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        if call.name == MORE_TOOLS && i < self.limits.calls_per_round {
            batch.results[i] = Some(self.more_tools());
            return;
        }
        let checked = if i >= self.limits.calls_per_round {
            Err(format!(
                "skipped: at most {} tool calls per round; ask again for the rest",
                self.limits.calls_per_round
            ))
        } else {
            let registry: &'g Registry = self.registry;
            registry
                .validate(call, &self.context.root, &self.config)
                .map_err(|rejection| rejection.to_string())
        };
        let valid = match checked {
            Ok(valid) => valid,
            Err(error) => {
                self.repeats_in_a_row = 0;
                sink(&AgentEvent::ToolRejected {
                    round,
                    index: i,
                    name: call.name.clone(),
                    error: error.clone(),
                });
                batch.results[i] = Some(format!("error: {error}"));
                return;
            }
        };
        let key = call_key(&call.name, &valid.arguments);
        let written = call_text(&call.name, &valid.arguments);
        let Some((first_round, summary)) = self.earlier_call(batch, &key) else {
            self.repeats_in_a_row = 0;
            batch.pending[i] = Some((key, written));
            batch.runnable.push((i, valid));
            return;
        };
        self.stats.repeats += 1;
        self.repeats_in_a_row += 1;
        sink(&AgentEvent::ToolRepeated {
            round,
            index: i,
            name: call.name.clone(),
            first_round,
        });
        let when = if first_round == 0 {
            "before your first step".to_string()
        } else {
            format!("at step {first_round}")
        };
        batch.results[i] = Some(format!(
            "repeated call: {written} was already run {when} and found: {summary}. \
             Its results are above. Do not call it again: answer the question from them, \
             citing path:line, or call a different tool."
        ));
    }

    /// The round and summary of the same call made before, in an earlier
    /// step or earlier in this one.
    fn earlier_call(&self, batch: &Batch<'_, '_>, key: &str) -> Option<(u32, String)> {
        self.done_calls
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, r, summary)| (*r, summary.clone()))
            .or_else(|| {
                let queued = batch.pending.iter().flatten().any(|(k, _)| *k == key);
                queued.then(|| (batch.round, "(the same call, earlier in this step)".into()))
            })
    }

    /// One approval for the batch, for the tools that need it. `false`:
    /// denied, every call is answered and the session ends.
    fn approve_batch(
        &mut self,
        batch: &mut Batch<'_, '_>,
        approver: &mut dyn Approver,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> bool {
        let round = batch.round;
        let needs_asking = |s: &Self, v: &Validated<'_>| {
            v.approval == Approval::Ask && !s.always_allowed.contains(v.tool.name())
        };
        let asking: Vec<(String, Value)> = (batch.runnable.iter())
            .filter(|(_, v)| needs_asking(self, v))
            .map(|(_, v)| {
                (
                    v.tool.name().to_string(),
                    Value::Object(v.arguments.clone()),
                )
            })
            .collect();
        if asking.is_empty() {
            return true;
        }
        sink(&AgentEvent::ApprovalRequested {
            round,
            tools: asking.iter().map(|(n, _)| n.clone()).collect(),
        });
        let how = match approver.approve(&asking) {
            Decision::Deny => {
                for (i, v) in batch.runnable.iter().filter(|(_, v)| needs_asking(self, v)) {
                    sink(&AgentEvent::ToolDenied {
                        round,
                        index: *i,
                        name: v.tool.name().into(),
                    });
                }
                for (i, call) in batch.reply.tool_calls.iter().enumerate() {
                    let result = batch.results[i].get_or_insert_with(|| {
                        "error: denied by the user; the session ends".into()
                    });
                    self.messages
                        .push(self.protocol.tool_result_message(call, result));
                }
                return false;
            }
            Decision::AllowBatch => "batch",
            Decision::AlwaysAllow => {
                self.always_allowed
                    .extend(asking.iter().map(|(name, _)| name.clone()));
                "always"
            }
        };
        for (i, v) in &batch.runnable {
            if v.approval == Approval::Ask {
                sink(&AgentEvent::ToolApproved {
                    round,
                    index: *i,
                    name: v.tool.name().into(),
                    how: how.into(),
                });
            }
        }
        true
    }

    /// Runs the calls in parallel (read-only tools share nothing mutable),
    /// each with how long it took, in milliseconds.
    fn run_batch(&self, runnable: &[(usize, Validated<'_>)]) -> Vec<(usize, Timed)> {
        let context = self.context;
        std::thread::scope(|scope| {
            let handles: Vec<_> = runnable
                .iter()
                .map(|(i, v)| {
                    let run = || {
                        let started = Instant::now();
                        let output = v.tool.run(context, &v.arguments);
                        (output, started.elapsed().as_secs_f64() * 1e3)
                    };
                    (*i, scope.spawn(run))
                })
                .collect();
            let panicked = || (Err(ToolError::Panicked(String::new())), 0.0);
            handles
                .into_iter()
                .map(|(i, h)| (i, h.join().unwrap_or_else(|_| panicked())))
                .collect()
        })
    }

    /// What one call's output adds (its evidence, its finding, a loaded
    /// skill) and the text the model is given, cut to the result budget.
    fn record_output(
        &mut self,
        batch: &mut Batch<'_, '_>,
        i: usize,
        (output, ms): Timed,
        sink: &mut dyn FnMut(&AgentEvent),
    ) -> String {
        let round = batch.round;
        let name = batch.reply.tool_calls[i].name.clone();
        let output = match output {
            Ok(output) => output,
            Err(error) => {
                let text = format!("error: {error}");
                sink(&AgentEvent::ToolFinished {
                    round,
                    index: i,
                    name,
                    summary: String::new(),
                    results: 0,
                    bytes: text.len(),
                    cut: false,
                    error: Some(error.to_string()),
                    ms,
                });
                return text;
            }
        };
        let budget = budget::result_budget(self.limits.context_tokens);
        let (text, cut) = budget::cut(&render_for_model(&output), budget);
        if let Some((key, written)) = batch.pending[i].take() {
            self.done_calls.push((key, round, output.summary.clone()));
            self.findings.push(format!("{written}: {}", output.summary));
        }
        if name == "activate_skill" {
            self.skills_loaded.push(text.clone());
        }
        sink(&AgentEvent::ToolFinished {
            round,
            index: i,
            name,
            summary: output.summary.clone(),
            results: output.evidence.len(),
            bytes: text.len(),
            cut,
            error: None,
            ms,
        });
        self.gathered.extend(output.evidence);
        text
    }

    /// `more_tools`: every tool with every option is offered from now on;
    /// the result says what they are.
    pub(super) fn more_tools(&mut self) -> String {
        self.all_tools = true;
        let mut text = String::from("Every tool is offered from now on:\n");
        for tool in self.registry.schemas() {
            let options: Vec<String> = tool.parameters["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            text.push_str(&format!(
                "- {}({}): {}\n",
                tool.name,
                options.join(", "),
                tool.description
            ));
        }
        text
    }
}

pub(super) enum ToolStepEnd {
    Done,
    /// Calls already made, asked for again too many times in a row.
    Repeating,
    Denied,
    Cancelled,
}

/// A call in normalised form: its name and its validated arguments (keys in
/// order, strings trimmed), so the same call written differently is the same.
pub(super) fn call_key(name: &str, arguments: &Map<String, Value>) -> String {
    let normalised: Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => (k.clone(), Value::String(s.trim().to_string())),
            other => (k.clone(), other.clone()),
        })
        .collect();
    format!("{name}{}", Value::Object(normalised))
}

/// `find_importers(module="rag_common")`, as the trace writes calls.
pub(super) fn call_text(name: &str, arguments: &Map<String, Value>) -> String {
    let written: Vec<String> = arguments.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}({})", written.join(", "))
}
