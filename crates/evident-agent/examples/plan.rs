//! Prints what `ask` would look up for each question on stdin, one JSON line
//! each: the linked entities, the intent and who decided it (`fallback` here:
//! no model is asked), and the planned calls.
//!
//!     cargo run -p evident-agent --example plan -- REPO < questions.txt

use std::io::BufRead;

use evident_agent::{prefetch, ToolContext};
use evident_index::Index;

fn main() {
    let root = std::env::args()
        .nth(1)
        .expect("usage: plan REPO < questions");
    let context = ToolContext::plain(&root);
    let index = Index::open(std::path::Path::new(&root)).expect("an indexed repository");
    for question in std::io::stdin().lock().lines().map_while(Result::ok) {
        let (decision, entities) =
            prefetch::decide(&question, &context, Some(&index), &mut |_| None);
        let plan = prefetch::plan(&question, decision, entities);
        let calls: Vec<String> = plan
            .calls
            .iter()
            .map(|(n, a)| format!("{n}({})", serde_json::Value::Object(a.clone())))
            .collect();
        let line = serde_json::json!({
            "q": question,
            "intent": plan.decision.intent,
            "by": plan.decision.by,
            "subject": plan.subject().map(|s| s.key.clone()),
            "entities": plan.entities.iter().map(|e| format!("{} {:.2}", e.describe(), e.score)).collect::<Vec<_>>(),
            "calls": calls,
        });
        println!("{line}");
    }
}
