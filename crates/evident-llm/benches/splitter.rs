//! Throughput of the streaming tool-call splitter and the text parsers on
//! synthetic model output with calls, fed in 1-byte, 16-byte and 4 KiB
//! chunks, against a naive splitter that rescans the accumulated text on every
//! chunk (what seed 002 does), in the same run.
//!
//! Run: `cargo bench -p evident-llm --bench splitter` (figures in BENCHMARKS.md).

use std::hint::black_box;
use std::time::Instant;

use evident_llm::{recover_calls, HermesSplitter, Piece, PieceRef};

/// About `size` bytes of call-dense model output: prose, code fences,
/// reasoning and a call every ~150 bytes (the worst case for the parsers).
fn synthetic(size: usize) -> String {
    mixed(size, 1)
}

/// Model output with one call per `prose_blocks` prose/code blocks.
fn mixed(size: usize, prose_blocks: usize) -> String {
    let prose = [
        "Let me look at how the collection name is computed before answering.\n",
        "The function `get_collection_name` lives in rag_common and is used by three callers.\n",
        "```python\ndef get_collection_name(prefix: str) -> str:\n    return f\"{prefix}_docs\"  # <tool_call> in code is text\n```\n",
        "<think>I should check the importers too, x < y holds.</think>",
        "Unicode is fine too: 名前 → ✓.\n",
    ];
    let calls = [
        "<tool_call>\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"get_collection_name\", \"kind\": \"function\"}}\n</tool_call>\n",
        "<tool_call>{\"name\": \"find_importers\", \"arguments\": {\"module\": \"rag_common\"}}</tool_call>",
    ];
    let mut out = String::with_capacity(size + 256);
    let mut i = 0;
    while out.len() < size {
        for _ in 0..prose_blocks {
            out.push_str(prose[i % prose.len()]);
            i += 1;
        }
        out.push_str(calls[i % calls.len()]);
    }
    out
}

fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
    }
    out
}

/// Ours, as a streaming consumer uses it (pieces handed to a callback, text
/// borrowed): returns the number of calls, and counts text bytes, so the work
/// cannot be optimised away.
fn incremental(pieces: &[&str]) -> usize {
    let mut splitter = HermesSplitter::new(false);
    let (mut calls, mut text) = (0, 0);
    let mut sink = |piece: PieceRef<'_>| match piece {
        PieceRef::Call(_) => calls += 1,
        PieceRef::Text(t) | PieceRef::Thinking(t) => text += t.len(),
        _ => {}
    };
    for piece in pieces {
        splitter.feed_with(piece, &mut sink);
    }
    splitter.finish_with(&mut sink);
    black_box(text);
    calls
}

/// The owned-pieces API (`feed` returns a `Vec<Piece>`), for comparison.
fn incremental_owned(pieces: &[&str]) -> usize {
    let mut splitter = HermesSplitter::new(false);
    let mut calls = 0;
    for piece in pieces {
        calls += splitter
            .feed(piece)
            .iter()
            .filter(|p| matches!(p, Piece::Call(_)))
            .count();
    }
    calls
        + splitter
            .finish()
            .iter()
            .filter(|p| matches!(p, Piece::Call(_)))
            .count()
}

/// The naive way: append, then rescan everything from the start for complete
/// blocks and the visible text, on every chunk.
fn naive(pieces: &[&str]) -> usize {
    let mut buffer = String::new();
    let mut calls = 0;
    for piece in pieces {
        buffer.push_str(piece);
        let mut visible = 0usize;
        calls = 0;
        let mut rest = buffer.as_str();
        while let Some(open) = rest.find("<tool_call>") {
            visible += open;
            match rest[open..].find("</tool_call>") {
                Some(close) => {
                    calls += 1;
                    rest = &rest[open + close + 12..];
                }
                None => {
                    rest = "";
                }
            }
        }
        black_box(visible + rest.len());
    }
    calls
}

fn measure(label: &str, bytes: usize, f: impl Fn() -> usize) -> f64 {
    let runs = 3;
    let mut best = f64::MAX;
    let mut result = 0;
    for _ in 0..runs {
        let started = Instant::now();
        result = black_box(f());
        best = best.min(started.elapsed().as_secs_f64());
    }
    let mbps = bytes as f64 / best / 1e6;
    println!(
        "{label:<44} {:>9.1} MB/s  ({:.3} s, {result} calls)",
        mbps, best
    );
    mbps
}

fn main() {
    let big = synthetic(10 * 1024 * 1024);
    println!("synthetic model output: {} bytes", big.len());
    let mut ours = Vec::new();
    for size in [1usize, 16, 4096] {
        let pieces = chunks(&big, size);
        ours.push(measure(
            &format!("incremental splitter, {size}-byte chunks, 10 MB"),
            big.len(),
            || incremental(&pieces),
        ));
    }
    // Linearity: the same work per byte at a tenth of the size.
    let small = synthetic(1024 * 1024);
    let pieces = chunks(&small, 16);
    let small_rate = measure(
        "incremental splitter, 16-byte chunks, 1 MB",
        small.len(),
        || incremental(&pieces),
    );
    println!(
        "linearity (10 MB rate / 1 MB rate, 16-byte chunks): {:.2}",
        ours[1] / small_rate
    );

    let pieces = chunks(&big, 16);
    measure(
        "owned pieces (feed -> Vec<Piece>), 16-byte chunks",
        big.len(),
        || incremental_owned(&pieces),
    );

    // Typical replies: one call per ~2 KB of prose and code.
    let typical = mixed(10 * 1024 * 1024, 20);
    for size in [16usize, 4096] {
        let pieces = chunks(&typical, size);
        measure(
            &format!("incremental splitter, typical, {size}-byte chunks"),
            typical.len(),
            || incremental(&pieces),
        );
    }

    // `--ours-only` (for profiling) stops here.
    if std::env::args().any(|a| a == "--ours-only") {
        return;
    }
    // The naive rescan is quadratic: 10 MB in small chunks would take hours, so it runs on less.
    for (size, total) in [(4096usize, 10 * 1024 * 1024), (16, 256 * 1024)] {
        let text = synthetic(total);
        let pieces = chunks(&text, size);
        let naive_rate = measure(
            &format!("naive rescan, {size}-byte chunks, {} KiB", total / 1024),
            text.len(),
            || naive(&pieces),
        );
        let ours_rate = measure(
            &format!(
                "incremental splitter, {size}-byte chunks, {} KiB",
                total / 1024
            ),
            text.len(),
            || incremental(&pieces),
        );
        println!(
            "  ratio incremental / naive: {:.0}x",
            ours_rate / naive_rate
        );
    }

    let tools = vec!["find_symbol".to_string(), "find_importers".to_string()];
    let json_reply: String = (0..20_000)
        .map(|i| format!("{{\"name\": \"find_symbol\", \"arguments\": {{\"name\": \"sym{i}\", \"path\": \"src/a.rs\"}}}};\n"))
        .collect();
    measure(
        "content recovery (bare JSON calls), one pass",
        json_reply.len(),
        || recover_calls(&json_reply, &tools, 0).calls.len(),
    );
}
