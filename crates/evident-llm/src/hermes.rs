//! The streaming splitter for Hermes/Qwen text tool calls:
//! `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, any number of
//! them, with `<think>...</think>` reasoning.
//!
//! It is incremental: every byte is looked at once (plus at most one tag's
//! length again when a held-back `<` turns out not to start a tag), so a
//! reply costs O(its length) however it is chunked. Seed 002 rescans the
//! accumulated text per chunk instead, which is quadratic.
//!
//! Rules:
//! - A partial tag at a chunk boundary is held back until it is decided, so a
//!   user never sees `<tool_ca`. At the end of the stream it is text again.
//! - Tags inside Markdown code (fenced blocks, inline spans) and inside
//!   `<think>` are text: a model explaining the format does not call a tool.
//! - `</tool_call>` inside a JSON string of the call does not close it.
//! - A block that cannot be read as a call becomes [`Piece::Malformed`],
//!   never nothing; an unterminated block at the end of the stream is a call
//!   if its JSON is complete.

use crate::call_json::{parse_call, Leniency};
use crate::types::{ProtocolError, ToolCall};

const CALL_OPEN: &str = "<tool_call>";
const CALL_CLOSE: &str = "</tool_call>";
const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

/// One piece of split output, in stream order.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Answer text for the user.
    Text(String),
    /// Reasoning text.
    Thinking(String),
    /// A `<tool_call>` block opened; its call will have this index.
    CallStarted { index: usize },
    /// More of the open call's body, as written (for progress display).
    CallDelta { index: usize, text: String },
    /// A call block closed and was read.
    Call(ToolCall),
    /// A call block that could not be read.
    Malformed(ProtocolError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    Think,
    Call,
}

/// Splits a streamed reply into text, thinking and calls. Feed chunks with
/// [`feed`](Self::feed), then call [`finish`](Self::finish) once.
#[derive(Debug)]
pub struct HermesSplitter {
    state: State,
    /// A `<` and what followed it, while it may still be a tag.
    held: String,
    /// Skip whitespace at the start of the next text or thinking (after a tag).
    trim_leading: bool,
    /// No thinking text has come yet (an opening `<think>` is still expected).
    think_fresh: bool,
    // Markdown tracking in the text state.
    line_blank_so_far: bool,
    backtick_run: usize,
    run_at_line_start: bool,
    fence: Option<usize>,
    inline_code: Option<usize>,
    // The open call.
    call_body: String,
    in_string: bool,
    escaped: bool,
    next_index: usize,
    out: Vec<Piece>,
}

impl HermesSplitter {
    /// `think`: the reply starts inside reasoning (Qwen3-style thinking models
    /// may omit the opening `<think>`).
    pub fn new(think: bool) -> Self {
        HermesSplitter {
            state: if think { State::Think } else { State::Text },
            held: String::new(),
            trim_leading: think,
            think_fresh: true,
            line_blank_so_far: true,
            backtick_run: 0,
            run_at_line_start: false,
            fence: None,
            inline_code: None,
            call_body: String::new(),
            in_string: false,
            escaped: false,
            next_index: 0,
            out: Vec::new(),
        }
    }

    /// The number of calls read so far (the next call's index).
    pub fn calls_seen(&self) -> usize {
        self.next_index
    }

    /// Feeds the next chunk; returns what it decided.
    pub fn feed(&mut self, chunk: &str) -> Vec<Piece> {
        self.process(chunk);
        std::mem::take(&mut self.out)
    }

    /// Ends the stream: a held partial tag is text again, an open call is read as it stands.
    pub fn finish(&mut self) -> Vec<Piece> {
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() {
            match self.state {
                State::Call => self.call_bytes(&held),
                _ => self.emit(&held),
            }
        }
        if self.state == State::Call {
            let body = std::mem::take(&mut self.call_body);
            match parse_call(&body, self.next_index, Leniency::Marked) {
                Ok(call) => {
                    self.next_index += 1;
                    self.out.push(Piece::Call(call));
                }
                Err(message) => self.out.push(Piece::Malformed(ProtocolError {
                    raw: format!("{CALL_OPEN}{body}"),
                    message: format!("unterminated {CALL_OPEN} block: {message}"),
                })),
            }
            self.state = State::Text;
        }
        std::mem::take(&mut self.out)
    }

    fn process(&mut self, input: &str) {
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if !self.held.is_empty() {
                i += self.extend_held(input, i);
                continue;
            }
            match self.state {
                State::Text => i += self.text_step(input, i),
                State::Think => {
                    let rest = &input[i..];
                    match memchr::memchr(b'<', rest.as_bytes()) {
                        Some(0) => {
                            self.held.push('<');
                            i += 1;
                        }
                        Some(n) => {
                            self.emit(&rest[..n]);
                            i += n;
                        }
                        None => {
                            self.emit(rest);
                            i = bytes.len();
                        }
                    }
                }
                State::Call => i += self.call_step(input, i),
            }
        }
    }

    /// Text outside calls and reasoning: tracks Markdown code so tags in it stay text.
    fn text_step(&mut self, input: &str, at: usize) -> usize {
        let rest = &input[at..];
        let b = rest.as_bytes()[0];
        if b != b'`' && self.backtick_run > 0 {
            self.end_backtick_run();
        }
        match b {
            b'`' => {
                if self.backtick_run == 0 {
                    self.run_at_line_start = self.line_blank_so_far;
                }
                self.backtick_run += 1;
                self.line_blank_so_far = false;
                self.emit("`");
                1
            }
            b'\n' => {
                self.line_blank_so_far = true;
                self.inline_code = None;
                self.emit("\n");
                1
            }
            b'<' if self.fence.is_none() && self.inline_code.is_none() => {
                self.line_blank_so_far = false;
                self.held.push('<');
                1
            }
            _ => {
                let end = memchr::memchr3(b'`', b'\n', b'<', rest.as_bytes())
                    .unwrap_or(rest.len())
                    .max(1);
                let segment = &rest[..end];
                if self.line_blank_so_far && !segment.bytes().all(|c| c == b' ' || c == b'\t') {
                    self.line_blank_so_far = false;
                }
                self.emit(segment);
                end
            }
        }
    }

    fn end_backtick_run(&mut self) {
        let run = std::mem::take(&mut self.backtick_run);
        if let Some(open) = self.fence {
            if run >= open && self.run_at_line_start {
                self.fence = None;
            }
        } else if run >= 3 && self.run_at_line_start {
            self.fence = Some(run);
            self.inline_code = None;
        } else if let Some(open) = self.inline_code {
            if open == run {
                self.inline_code = None;
            }
        } else {
            self.inline_code = Some(run);
        }
    }

    /// Inside `<tool_call>`: collects the body, watching JSON strings so a
    /// `</tool_call>` inside one does not end the block.
    fn call_step(&mut self, input: &str, at: usize) -> usize {
        let rest = &input[at..];
        let b = rest.as_bytes()[0];
        match b {
            b'"' => {
                if self.escaped {
                    self.escaped = false;
                } else {
                    self.in_string = !self.in_string;
                }
                self.call_bytes("\"");
                1
            }
            b'\\' => {
                if self.in_string {
                    self.escaped = !self.escaped;
                }
                self.call_bytes("\\");
                1
            }
            b'<' if !self.in_string => {
                self.held.push('<');
                1
            }
            _ => {
                let end = memchr::memchr3(b'"', b'\\', b'<', &rest.as_bytes()[1..])
                    .map_or(rest.len(), |n| n + 1);
                self.escaped = false;
                self.call_bytes(&rest[..end]);
                end
            }
        }
    }

    fn call_bytes(&mut self, text: &str) {
        self.call_body.push_str(text);
        let index = self.next_index;
        if let Some(Piece::CallDelta {
            index: last,
            text: pending,
        }) = self.out.last_mut()
        {
            if *last == index {
                pending.push_str(text);
                return;
            }
        }
        self.out.push(Piece::CallDelta {
            index,
            text: text.to_string(),
        });
    }

    /// Adds bytes to a held `<...` until it is a whole tag or cannot become one.
    /// Returns how many bytes of `input` (from `at`) it consumed.
    fn extend_held(&mut self, input: &str, at: usize) -> usize {
        let candidates: &[&str] = match self.state {
            State::Text => &[CALL_OPEN, THINK_OPEN],
            State::Think if self.think_fresh => &[THINK_CLOSE, THINK_OPEN],
            State::Think => &[THINK_CLOSE],
            State::Call => &[CALL_CLOSE],
        };
        let rest = &input[at..];
        let mut consumed = 0;
        for (offset, ch) in rest.char_indices() {
            self.held.push(ch);
            consumed = offset + ch.len_utf8();
            if let Some(tag) = candidates.iter().find(|t| **t == self.held) {
                self.held.clear();
                self.enter_tag(tag);
                return consumed;
            }
            if !candidates.iter().any(|t| t.starts_with(self.held.as_str())) {
                // Not a tag: the `<` is ordinary, and what followed it is processed afresh.
                let held = std::mem::take(&mut self.held);
                match self.state {
                    State::Call => self.call_bytes("<"),
                    _ => self.emit("<"),
                }
                self.process(&held[1..]);
                return consumed;
            }
        }
        consumed
    }

    fn enter_tag(&mut self, tag: &str) {
        match tag {
            CALL_OPEN => {
                self.state = State::Call;
                self.call_body.clear();
                self.in_string = false;
                self.escaped = false;
                self.out.push(Piece::CallStarted {
                    index: self.next_index,
                });
            }
            CALL_CLOSE => {
                let body = std::mem::take(&mut self.call_body);
                match parse_call(&body, self.next_index, Leniency::Marked) {
                    Ok(call) => {
                        self.next_index += 1;
                        self.out.push(Piece::Call(call));
                    }
                    Err(message) => self.out.push(Piece::Malformed(ProtocolError {
                        raw: format!("{CALL_OPEN}{body}{CALL_CLOSE}"),
                        message,
                    })),
                }
                self.state = State::Text;
                self.line_blank_so_far = false;
            }
            THINK_OPEN => {
                self.state = State::Think;
                self.think_fresh = true;
                self.trim_leading = true;
            }
            THINK_CLOSE => {
                self.state = State::Text;
                self.trim_leading = true;
                self.line_blank_so_far = true;
            }
            _ => unreachable!("unknown tag {tag}"),
        }
    }

    /// Emits text or thinking, per state, merging with the previous piece.
    fn emit(&mut self, mut text: &str) {
        if self.trim_leading {
            text = text.trim_start();
            if text.is_empty() {
                return;
            }
            self.trim_leading = false;
        }
        if text.is_empty() {
            return;
        }
        let thinking = self.state == State::Think;
        if thinking {
            self.think_fresh = false;
        }
        match self.out.last_mut() {
            Some(Piece::Thinking(pending)) if thinking => pending.push_str(text),
            Some(Piece::Text(pending)) if !thinking => pending.push_str(text),
            _ => self.out.push(if thinking {
                Piece::Thinking(text.to_string())
            } else {
                Piece::Text(text.to_string())
            }),
        }
    }
}
