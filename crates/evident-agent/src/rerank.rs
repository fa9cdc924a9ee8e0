//! Reranking (`evident search --rerank`): a chat model scores the top candidates of the
//! fused ranking for relevance to the query (0 to 10, in one constrained-JSON
//! reply), within a time budget. Scores are cached by (query, candidate text
//! hash, model) in `.evident/rerank.db`, so asking again costs nothing. On a
//! timeout, an error or a reply that does not fit, the fused order stands and
//! the caller is told why.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use evident_index::store::ScoreCache;
use evident_index::Evidence;
use evident_llm::{run_turn, CancelToken, ChatClient, ChatRequest, Message, Protocol};
use serde_json::{json, Value};

/// Lines and bytes of each candidate the model reads.
const CANDIDATE_LINES: usize = 12;
const CANDIDATE_BYTES: usize = 700;

/// The model that scores, and how much of the ranking it sees.
pub struct Reranker {
    pub client: Box<dyn ChatClient>,
    pub model: String,
    /// How many of the fused results the model scores.
    pub top: usize,
    pub budget: Duration,
}

/// What happened: the results are reordered in place only on `Reranked`.
#[derive(Debug, PartialEq)]
pub enum RerankOutcome {
    /// Scored `asked` candidates with the model, `cached` from earlier runs.
    Reranked { asked: usize, cached: usize },
    /// The fused order stands, for this reason.
    FellBack(String),
}

/// The text of a candidate the model sees, and whose hash keys the cache.
fn candidate_text(ev: &Evidence) -> String {
    let mut text = format!("{} {} {}\n", ev.location(), ev.kind, ev.name);
    for line in ev.snippet.lines().take(CANDIDATE_LINES) {
        if text.len() + line.len() > CANDIDATE_BYTES {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn text_hash(text: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

/// Reorders the first `choice.top` of `results` by the model's scores
/// (ties keep the fused order); the rest follow in fused order.
pub fn rerank(
    root: &Path,
    query: &str,
    results: &mut [Evidence],
    choice: &Reranker,
) -> RerankOutcome {
    let n = choice.top.min(results.len());
    if n == 0 {
        return RerankOutcome::Reranked {
            asked: 0,
            cached: 0,
        };
    }
    let query = query.trim();
    let texts: Vec<String> = results[..n].iter().map(candidate_text).collect();
    let hashes: Vec<String> = texts.iter().map(|t| text_hash(t)).collect();
    // A cache that cannot be opened only costs time.
    let cache = ScoreCache::open(root).ok();
    let mut scores: Vec<Option<f64>> = hashes
        .iter()
        .map(|hash| cache.as_ref()?.get(query, hash, &choice.model))
        .collect();
    let missing: Vec<usize> = (0..n).filter(|&i| scores[i].is_none()).collect();
    if !missing.is_empty() {
        let asked: Vec<&str> = missing.iter().map(|&i| texts[i].as_str()).collect();
        match ask_model(query, &asked, choice) {
            Ok(new_scores) => {
                for (&i, score) in missing.iter().zip(new_scores) {
                    scores[i] = Some(score);
                    if let Some(cache) = &cache {
                        cache.put(query, &hashes[i], &choice.model, score);
                    }
                }
            }
            Err(why) => return RerankOutcome::FellBack(why),
        }
    }
    let mut order: Vec<(usize, f64)> = scores
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s.unwrap_or(0.0)))
        .collect();
    // A stable sort: equal scores keep the fused order.
    order.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut reordered: Vec<Evidence> = order
        .iter()
        .map(|&(i, score)| {
            let mut ev = results[i].clone();
            let fused = ev.reason.take();
            ev.reason = Some(match fused {
                Some(fused) => format!("rerank {score}/10 (fused #{}: {fused})", i + 1),
                None => format!("rerank {score}/10 (fused #{})", i + 1),
            });
            ev.score = Some(score);
            ev
        })
        .collect();
    for (slot, ev) in results[..n].iter_mut().zip(reordered.drain(..)) {
        *slot = ev;
    }
    RerankOutcome::Reranked {
        asked: missing.len(),
        cached: n - missing.len(),
    }
}

/// One request: every candidate numbered, one integer score each.
fn ask_model(query: &str, candidates: &[&str], choice: &Reranker) -> Result<Vec<f64>, String> {
    let budget = choice.budget;
    let mut listing = String::new();
    for (i, text) in candidates.iter().enumerate() {
        listing.push_str(&format!("[{}] {}\n", i + 1, text.trim_end()));
    }
    let schema = json!({
        "type": "object",
        "properties": {"scores": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 10},
            "minItems": candidates.len(), "maxItems": candidates.len()
        }},
        "required": ["scores"]
    });
    let request = ChatRequest {
        model: choice.model.clone(),
        messages: vec![
            Message::system(
                "You rank code search results. For each numbered candidate, give an integer from 0 \
                 (unrelated) to 10 (exactly what the query asks for). Reply with JSON only: \
                 {\"scores\": [one integer per candidate, in order]}.",
            ),
            Message::user(format!("Query: {query}\n\nCandidates:\n{listing}")),
        ],
        protocol: Protocol::Native,
        temperature: Some(0.0),
        max_tokens: Some(16 + 4 * candidates.len() as u32),
        answer_schema: Some(schema),
        ..Default::default()
    };
    let cancel = CancelToken::new();
    let (done, finished) = mpsc::channel::<()>();
    let timer = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            if finished.recv_timeout(budget) == Err(mpsc::RecvTimeoutError::Timeout) {
                cancel.cancel();
            }
        })
    };
    let outcome = run_turn(choice.client.as_ref(), &request, &cancel, &mut |_| {});
    let _ = done.send(());
    let _ = timer.join();
    let reply = match outcome {
        Ok(reply) => reply,
        Err(_) if cancel.is_cancelled() => {
            return Err(format!(
                "the model took longer than {} s",
                budget.as_secs_f64()
            ))
        }
        Err(e) => return Err(format!("the model failed: {}", e.error)),
    };
    parse_scores(&reply.content, candidates.len())
}

/// `{"scores": [...]}` with one number from 0 to 10 per candidate.
fn parse_scores(content: &str, expected: usize) -> Result<Vec<f64>, String> {
    let value: Value = serde_json::from_str(content.trim())
        .map_err(|e| format!("the model's reply is not JSON ({e})"))?;
    let scores = value
        .get("scores")
        .and_then(Value::as_array)
        .ok_or("the model's reply has no \"scores\" list")?;
    if scores.len() != expected {
        return Err(format!(
            "the model scored {} candidates, not {expected}",
            scores.len()
        ));
    }
    scores
        .iter()
        .map(|s| match s.as_f64() {
            Some(x) if (0.0..=10.0).contains(&x) => Ok(x),
            _ => Err(format!("the model gave {s} as a score (want 0 to 10)")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_checked() {
        assert_eq!(
            parse_scores(r#"{"scores": [3, 10, 0]}"#, 3),
            Ok(vec![3.0, 10.0, 0.0])
        );
        assert!(parse_scores(r#"{"scores": [3]}"#, 2)
            .unwrap_err()
            .contains("scored 1 candidates, not 2"));
        assert!(parse_scores(r#"{"scores": [11, 2]}"#, 2)
            .unwrap_err()
            .contains("11"));
        assert!(parse_scores(r#"{"scores": ["a"]}"#, 1)
            .unwrap_err()
            .contains("\"a\""));
        assert!(parse_scores("sure! here", 1)
            .unwrap_err()
            .contains("not JSON"));
        assert!(parse_scores(r#"{"ranks": []}"#, 0)
            .unwrap_err()
            .contains("no \"scores\""));
    }
}
