//! The session: a bounded state machine,
//! `Prefetch → ModelStep → ToolStep → (CompactionStep) → ModelStep … → Finish`.
//! The model only proposes calls; each batch is validated whole, approved once
//! where a tool needs it, run (in parallel), and answered in call order, one
//! result per call, rejected, skipped and repeated ones included.
//!
//! Small models need the loop to carry them, so: the obvious lookups run
//! before the first model call (`prefetch`); a call identical to an earlier
//! one is not run again, and two in a row end the tool phase; and a session
//! never ends with nothing: when the model stops without an answer, one last
//! call without tools answers from the evidence gathered, and if that fails
//! too the answer is the list of what was found.

mod answer;
mod approval;
mod compact;
mod events;
mod prompt;
mod state;
mod tool_step;
mod turn;

use std::collections::HashSet;

use evident_index::Config;
use evident_llm::{CancelToken, ChatClient, Message, Protocol};

use crate::intent::Intent;
use crate::registry::Registry;
pub use crate::render::render_output;
use crate::tools::ToolContext;
pub use approval::{Approver, Decision, NonInteractive};
pub use events::AgentEvent;
use prompt::system_prompt;
pub use state::{AnsweredBy, FinishReason, Limits, Outcome, Session, SessionError, Stats};

impl<'a> Session<'a> {
    pub fn new(
        client: &'a dyn ChatClient,
        model: String,
        protocol: Protocol,
        registry: &'a Registry,
        context: &'a ToolContext,
        config: Config,
        limits: Limits,
    ) -> Session<'a> {
        let system = system_prompt(context);
        Session {
            client,
            model,
            protocol,
            registry,
            context,
            config,
            cancel: CancelToken::new(),
            messages: vec![Message::system(system.clone())],
            system,
            always_allowed: HashSet::new(),
            gathered: Vec::new(),
            question_at: 1,
            skills_loaded: Vec::new(),
            question: String::new(),
            done_calls: Vec::new(),
            findings: Vec::new(),
            intent: Intent::Search,
            facts: None,
            all_tools: limits.all_tools,
            stats: Stats::default(),
            repeats_in_a_row: 0,
            answer_first: false,
            limits,
        }
    }

    /// Forgets the conversation (`/reset`), keeping approvals given.
    pub fn reset(&mut self) {
        self.messages = vec![Message::system(self.system.clone())];
        self.gathered.clear();
        self.skills_loaded.clear();
        self.all_tools = self.limits.all_tools;
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }
}
