//! The tool step: a batch of proposed calls validated whole, repeats
//! answered without running, approved once, run in parallel, and answered
//! in call order, one result per call.

use super::*;

impl Session<'_> {
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
        let root = self.context.root.clone();
        // Validate the whole batch first; calls made before are answered, not run again.
        let mut results: Vec<Option<String>> = vec![None; reply.tool_calls.len()];
        let mut runnable = Vec::new();
        // Per call that will run: its normalised key and how it is written.
        let mut pending: Vec<Option<(String, String)>> = vec![None; reply.tool_calls.len()];
        for (i, call) in reply.tool_calls.iter().enumerate() {
            sink(&AgentEvent::ToolProposed {
                round,
                index: i,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            if call.name == MORE_TOOLS && i < self.limits.calls_per_round {
                results[i] = Some(self.more_tools());
                continue;
            }
            let checked = if i >= self.limits.calls_per_round {
                Err(format!(
                    "skipped: at most {} tool calls per round; ask again for the rest",
                    self.limits.calls_per_round
                ))
            } else {
                self.registry
                    .validate(call, &root, &self.config)
                    .map_err(|rejection| rejection.to_string())
            };
            match checked {
                Ok(valid) => {
                    let key = call_key(&call.name, &valid.arguments);
                    let earlier =
                        self.done_calls
                            .iter()
                            .find(|(k, _, _)| *k == key)
                            .map(|(_, r, summary)| (*r, summary.clone()))
                            .or_else(|| {
                                pending.iter().flatten().any(|(k, _)| *k == key).then(|| {
                                    (round, "(the same call, earlier in this step)".into())
                                })
                            });
                    if let Some((first_round, summary)) = earlier {
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
                        results[i] = Some(format!(
                            "repeated call: {} was already run {when} and found: {summary}. \
                             Its results are above. Do not call it again: answer the question from them, \
                             citing path:line, or call a different tool.",
                            call_text(&call.name, &valid.arguments)
                        ));
                    } else {
                        self.repeats_in_a_row = 0;
                        pending[i] = Some((key, call_text(&call.name, &valid.arguments)));
                        runnable.push((i, valid));
                    }
                }
                Err(error) => {
                    self.repeats_in_a_row = 0;
                    sink(&AgentEvent::ToolRejected {
                        round,
                        index: i,
                        name: call.name.clone(),
                        error: error.clone(),
                    });
                    results[i] = Some(format!("error: {error}"));
                }
            }
        }
        // One approval for the batch, for the tools that need it.
        let asking: Vec<(String, Value)> = runnable
            .iter()
            .filter(|(_, v)| {
                v.approval == Approval::Ask && !self.always_allowed.contains(v.tool.name())
            })
            .map(|(_, v)| {
                (
                    v.tool.name().to_string(),
                    Value::Object(v.arguments.clone()),
                )
            })
            .collect();
        if !asking.is_empty() {
            sink(&AgentEvent::ApprovalRequested {
                round,
                tools: asking.iter().map(|(n, _)| n.clone()).collect(),
            });
            let decision = approver.approve(&asking);
            let how = match decision {
                Decision::Deny => {
                    for (i, v) in &runnable {
                        if v.approval == Approval::Ask
                            && !self.always_allowed.contains(v.tool.name())
                        {
                            sink(&AgentEvent::ToolDenied {
                                round,
                                index: *i,
                                name: v.tool.name().into(),
                            });
                        }
                    }
                    for (i, call) in reply.tool_calls.iter().enumerate() {
                        if results[i].is_none() {
                            results[i] = Some("error: denied by the user; the session ends".into());
                        }
                        self.messages.push(
                            self.protocol.tool_result_message(
                                call,
                                results[i].as_deref().unwrap_or_default(),
                            ),
                        );
                    }
                    return ToolStepEnd::Denied;
                }
                Decision::AllowBatch => "batch",
                Decision::AlwaysAllow => {
                    for (name, _) in &asking {
                        self.always_allowed.insert(name.clone());
                    }
                    "always"
                }
            };
            for (i, v) in &runnable {
                if v.approval == Approval::Ask {
                    sink(&AgentEvent::ToolApproved {
                        round,
                        index: *i,
                        name: v.tool.name().into(),
                        how: how.into(),
                    });
                }
            }
        }
        if self.cancel.is_cancelled() {
            return ToolStepEnd::Cancelled;
        }
        for (i, v) in &runnable {
            sink(&AgentEvent::ToolStarted {
                round,
                index: *i,
                name: v.tool.name().into(),
            });
        }
        // Read-only tools share nothing mutable: run the batch in parallel.
        let context = self.context;
        type Timed = (Result<ToolOutput, ToolError>, f64);
        let outputs: Vec<(usize, Timed)> = std::thread::scope(|scope| {
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
            handles
                .into_iter()
                .map(|(i, h)| {
                    (
                        i,
                        h.join()
                            .unwrap_or_else(|_| (Err(ToolError::Panicked(String::new())), 0.0)),
                    )
                })
                .collect()
        });
        let budget = budget::result_budget(self.limits.context_tokens);
        for (i, (output, ms)) in outputs {
            let name = reply.tool_calls[i].name.clone();
            let (text, event) = match output {
                Ok(output) => {
                    let rendered = render_for_model(&output);
                    let (text, cut) = budget::cut(&rendered, budget);
                    if let Some((key, written)) = pending[i].take() {
                        self.done_calls.push((key, round, output.summary.clone()));
                        self.findings.push(format!("{written}: {}", output.summary));
                    }
                    if name == "activate_skill" {
                        self.skills_loaded.push(text.clone());
                    }
                    let event = AgentEvent::ToolFinished {
                        round,
                        index: i,
                        name,
                        summary: output.summary.clone(),
                        results: output.evidence.len(),
                        bytes: text.len(),
                        cut,
                        error: None,
                        ms,
                    };
                    self.gathered.extend(output.evidence);
                    (text, event)
                }
                Err(error) => {
                    let text = format!("error: {error}");
                    let event = AgentEvent::ToolFinished {
                        round,
                        index: i,
                        name,
                        summary: String::new(),
                        results: 0,
                        bytes: text.len(),
                        cut: false,
                        error: Some(error.to_string()),
                        ms,
                    };
                    (text, event)
                }
            };
            sink(&event);
            results[i] = Some(text);
        }
        for (call, result) in reply.tool_calls.iter().zip(results) {
            let result = result.unwrap_or_else(|| "error: not run".into());
            self.messages
                .push(self.protocol.tool_result_message(call, &result));
        }
        if self.repeats_in_a_row >= MAX_REPEATS_IN_A_ROW {
            return ToolStepEnd::Repeating;
        }
        ToolStepEnd::Done
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
