//! Output budgets: a tool result is cut to what the model's context can
//! afford, keeping its head and tail by lines (and bytes), with a marker in the
//! middle that says how much went and what to do instead.

/// The most bytes one tool result may take, scaled to the context (tokens).
pub fn result_budget(context_tokens: u32) -> usize {
    match context_tokens {
        t if t > 32_768 => 24_000,
        t if t > 16_384 => 12_000,
        t if t > 8_192 => 6_000,
        t if t > 4_096 => 3_000,
        _ => 1_600,
    }
}

/// One line cut to at most `max_bytes` (on a character boundary), with `...`.
pub fn cut_line(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let mut end = max_bytes.saturating_sub(3);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// `text` if it fits in `max_bytes`; else its first and last lines, each part
/// about half the budget, around
/// `[... omitted N lines (M bytes); narrow the query or read_evidence a smaller range ...]`.
pub fn cut(text: &str, max_bytes: usize) -> (String, bool) {
    if text.len() <= max_bytes {
        return (text.to_string(), false);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let half = max_bytes.saturating_sub(120) / 2;
    let (mut head, mut head_bytes) = (0, 0);
    while head < lines.len() && head_bytes + lines[head].len() <= half {
        head_bytes += lines[head].len();
        head += 1;
    }
    let (mut tail, mut tail_bytes) = (0, 0);
    while tail < lines.len() - head && tail_bytes + lines[lines.len() - 1 - tail].len() <= half {
        tail_bytes += lines[lines.len() - 1 - tail].len();
        tail += 1;
    }
    let mut out = String::with_capacity(max_bytes);
    out.push_str(&lines[..head].concat());
    if head == 0 {
        // One huge first line: keep its start by bytes.
        let mut end = half.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        out.push_str(&text[..end]);
        head_bytes = end;
        out.push('\n');
    }
    let omitted_lines = lines.len() - head - tail;
    let omitted_bytes = text.len() - head_bytes - tail_bytes;
    out.push_str(&format!(
        "[... omitted {omitted_lines} lines ({omitted_bytes} bytes); narrow the query or read_evidence a smaller range ...]\n"
    ));
    out.push_str(&lines[lines.len() - tail..].concat());
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_results_are_untouched() {
        assert_eq!(cut("a\nb\n", 100), ("a\nb\n".to_string(), false));
    }

    #[test]
    fn long_results_keep_head_and_tail_with_a_marker() {
        let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let (out, was_cut) = cut(&text, 1000);
        assert!(was_cut && out.len() <= 1000, "{}", out.len());
        assert!(out.starts_with("line 1\nline 2\n"));
        assert!(out.ends_with("line 999\nline 1000\n"));
        let marker = out.lines().find(|l| l.starts_with("[... omitted")).unwrap();
        let kept = out.lines().count() - 1;
        assert!(
            marker.contains(&format!("omitted {} lines", 1000 - kept)),
            "{marker}"
        );
        assert!(marker.contains("narrow the query or read_evidence a smaller range"));
    }

    #[test]
    fn one_huge_line_is_cut_by_bytes() {
        let text = "é".repeat(5000);
        let (out, was_cut) = cut(&text, 500);
        assert!(was_cut && out.len() < 600 && out.contains("[... omitted"));
    }

    #[test]
    fn budgets_scale_with_the_context() {
        assert!(result_budget(128_000) > result_budget(32_000));
        assert!(result_budget(32_000) > result_budget(8_192));
        assert!(result_budget(8_192) > result_budget(4_096));
    }
}
