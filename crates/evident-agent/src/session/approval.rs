//! Approval: a person's say over a batch of calls to tools that ask first.

use serde_json::Value;

/// A person's answer to an approval request for one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Deny,
    AllowBatch,
    /// Allow, and do not ask again for these tools in this session.
    AlwaysAllow,
}

/// Asks a person about a batch of calls that need approval.
pub trait Approver {
    fn approve(&mut self, calls: &[(String, Value)]) -> Decision;
}

/// For runs with nobody to ask: every call that needs approval is denied.
pub struct NonInteractive;

impl Approver for NonInteractive {
    fn approve(&mut self, _calls: &[(String, Value)]) -> Decision {
        Decision::Deny
    }
}
