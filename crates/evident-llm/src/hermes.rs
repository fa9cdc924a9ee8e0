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

/// A piece as [`HermesSplitter::feed_with`] hands it out: text borrowed from
/// the input, so streaming text costs no allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum PieceRef<'a> {
    Text(&'a str),
    Thinking(&'a str),
    CallStarted { index: usize },
    CallDelta { index: usize, text: &'a str },
    Call(ToolCall),
    Malformed(ProtocolError),
}

/// Appends `piece` to `out`, joining it to the previous piece of the same kind.
fn push_merged(out: &mut Vec<Piece>, piece: PieceRef<'_>) {
    match (out.last_mut(), piece) {
        (Some(Piece::Text(pending)), PieceRef::Text(text)) => pending.push_str(text),
        (Some(Piece::Thinking(pending)), PieceRef::Thinking(text)) => pending.push_str(text),
        (
            Some(Piece::CallDelta {
                index: last,
                text: pending,
            }),
            PieceRef::CallDelta { index, text },
        ) if *last == index => pending.push_str(text),
        (_, PieceRef::Text(text)) => out.push(Piece::Text(text.to_string())),
        (_, PieceRef::Thinking(text)) => out.push(Piece::Thinking(text.to_string())),
        (_, PieceRef::CallStarted { index }) => out.push(Piece::CallStarted { index }),
        (_, PieceRef::CallDelta { index, text }) => out.push(Piece::CallDelta {
            index,
            text: text.to_string(),
        }),
        (_, PieceRef::Call(call)) => out.push(Piece::Call(call)),
        (_, PieceRef::Malformed(error)) => out.push(Piece::Malformed(error)),
    }
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
        }
    }

    /// Feeds the next chunk; returns what it decided.
    pub fn feed(&mut self, chunk: &str) -> Vec<Piece> {
        let mut out = Vec::new();
        self.feed_with(chunk, &mut |piece| push_merged(&mut out, piece));
        out
    }

    /// Feeds the next chunk, handing each piece to `sink` as it is decided.
    pub fn feed_with(&mut self, chunk: &str, sink: &mut dyn FnMut(PieceRef<'_>)) {
        self.process(chunk, sink);
    }

    /// Ends the stream: a held partial tag is text again, an open call is read as it stands.
    pub fn finish(&mut self) -> Vec<Piece> {
        let mut out = Vec::new();
        self.finish_with(&mut |piece| push_merged(&mut out, piece));
        out
    }

    /// [`finish`](Self::finish), handing the pieces to `sink`.
    pub fn finish_with(&mut self, sink: &mut dyn FnMut(PieceRef<'_>)) {
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() {
            match self.state {
                State::Call => self.call_bytes(&held, sink),
                _ => self.emit(&held, sink),
            }
        }
        if self.state == State::Call {
            self.close_call(false, sink);
        }
    }

    /// Reads the open call's body as a call, or reports it; back to text.
    fn close_call(&mut self, terminated: bool, sink: &mut dyn FnMut(PieceRef<'_>)) {
        let body = std::mem::take(&mut self.call_body);
        match parse_call(&body, self.next_index, Leniency::Marked) {
            Ok(call) => {
                self.next_index += 1;
                sink(PieceRef::Call(call));
            }
            Err(message) if terminated => sink(PieceRef::Malformed(ProtocolError {
                raw: format!("{CALL_OPEN}{body}{CALL_CLOSE}"),
                message,
            })),
            Err(message) => sink(PieceRef::Malformed(ProtocolError {
                raw: format!("{CALL_OPEN}{body}"),
                message: format!("unterminated {CALL_OPEN} block: {message}"),
            })),
        }
        self.state = State::Text;
    }

    fn process(&mut self, input: &str, sink: &mut dyn FnMut(PieceRef<'_>)) {
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if !self.held.is_empty() {
                i += self.extend_held(input, i, sink);
                continue;
            }
            match self.state {
                State::Text => i += self.text_step(input, i, sink),
                State::Think => {
                    let rest = &input[i..];
                    match memchr::memchr(b'<', rest.as_bytes()) {
                        Some(0) => {
                            self.held.push('<');
                            i += 1;
                        }
                        Some(n) => {
                            self.emit(&rest[..n], sink);
                            i += n;
                        }
                        None => {
                            self.emit(rest, sink);
                            i = bytes.len();
                        }
                    }
                }
                State::Call => i += self.call_step(input, i, sink),
            }
        }
    }

    /// Text outside calls and reasoning, up to the next tag or the end of the
    /// input: tracks Markdown code so tags in it stay text. Emits one slice.
    fn text_step(&mut self, input: &str, at: usize, sink: &mut dyn FnMut(PieceRef<'_>)) -> usize {
        let bytes = input.as_bytes();
        let mut i = at;
        while i < bytes.len() {
            let b = bytes[i];
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
                    i += 1;
                }
                b'\n' => {
                    self.line_blank_so_far = true;
                    self.inline_code = None;
                    i += 1;
                }
                b'<' if self.fence.is_none() && self.inline_code.is_none() => {
                    self.emit(&input[at..i], sink);
                    self.line_blank_so_far = false;
                    self.held.push('<');
                    return i + 1 - at;
                }
                _ => {
                    let end = memchr::memchr3(b'`', b'\n', b'<', &bytes[i + 1..])
                        .map_or(bytes.len(), |n| i + 1 + n);
                    if self.line_blank_so_far
                        && !bytes[i..end].iter().all(|c| *c == b' ' || *c == b'\t')
                    {
                        self.line_blank_so_far = false;
                    }
                    i = end;
                }
            }
        }
        self.emit(&input[at..], sink);
        bytes.len() - at
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

    /// Inside `<tool_call>`: collects the body up to a possible closing tag or
    /// the end of the input, watching JSON strings so a `</tool_call>` inside
    /// one does not end the block.
    fn call_step(&mut self, input: &str, at: usize, sink: &mut dyn FnMut(PieceRef<'_>)) -> usize {
        let bytes = input.as_bytes();
        let mut i = at;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    if self.escaped {
                        self.escaped = false;
                    } else {
                        self.in_string = !self.in_string;
                    }
                    i += 1;
                }
                b'\\' => {
                    if self.in_string {
                        self.escaped = !self.escaped;
                    }
                    i += 1;
                }
                b'<' if !self.in_string => {
                    self.call_bytes(&input[at..i], sink);
                    self.held.push('<');
                    return i + 1 - at;
                }
                _ => {
                    self.escaped = false;
                    // JSON has a quote every few bytes: a plain loop beats restarting memchr.
                    i += 1;
                    while i < bytes.len() && !matches!(bytes[i], b'"' | b'\\' | b'<') {
                        i += 1;
                    }
                }
            }
        }
        self.call_bytes(&input[at..], sink);
        bytes.len() - at
    }

    fn call_bytes(&mut self, text: &str, sink: &mut dyn FnMut(PieceRef<'_>)) {
        if text.is_empty() {
            return;
        }
        self.call_body.push_str(text);
        sink(PieceRef::CallDelta {
            index: self.next_index,
            text,
        });
    }

    /// Adds bytes to a held `<...` until it is a whole tag or cannot become one.
    /// Returns how many bytes of `input` (from `at`) it consumed.
    fn extend_held(&mut self, input: &str, at: usize, sink: &mut dyn FnMut(PieceRef<'_>)) -> usize {
        let candidates: &[&str] = match self.state {
            State::Text => &[CALL_OPEN, THINK_OPEN],
            State::Think if self.think_fresh => &[THINK_CLOSE, THINK_OPEN],
            State::Think => &[THINK_CLOSE],
            State::Call => &[CALL_CLOSE],
        };
        let rest = &input[at..];
        if self.held.len() == 1 {
            // The common case: the whole tag, or a clear mismatch, is in this chunk.
            if let Some(tag) = candidates.iter().find(|t| rest.starts_with(&t[1..])) {
                self.held.clear();
                self.enter_tag(tag, sink);
                return tag.len() - 1;
            }
            let decided = candidates
                .iter()
                .all(|t| rest.len() >= t.len() - 1 || !t[1..].starts_with(rest));
            if decided {
                self.held.clear();
                match self.state {
                    State::Call => self.call_bytes("<", sink),
                    _ => self.emit("<", sink),
                }
                return 0;
            }
        }
        let mut consumed = 0;
        for (offset, ch) in rest.char_indices() {
            self.held.push(ch);
            consumed = offset + ch.len_utf8();
            if let Some(tag) = candidates.iter().find(|t| **t == self.held) {
                self.held.clear();
                self.enter_tag(tag, sink);
                return consumed;
            }
            if !candidates.iter().any(|t| t.starts_with(self.held.as_str())) {
                // Not a tag: the `<` is ordinary, and what followed it is processed afresh.
                let held = std::mem::take(&mut self.held);
                match self.state {
                    State::Call => self.call_bytes("<", sink),
                    _ => self.emit("<", sink),
                }
                self.process(&held[1..], sink);
                return consumed;
            }
        }
        consumed
    }

    fn enter_tag(&mut self, tag: &str, sink: &mut dyn FnMut(PieceRef<'_>)) {
        match tag {
            CALL_OPEN => {
                self.state = State::Call;
                self.call_body.clear();
                self.in_string = false;
                self.escaped = false;
                sink(PieceRef::CallStarted {
                    index: self.next_index,
                });
            }
            CALL_CLOSE => {
                self.close_call(true, sink);
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

    /// Emits text or thinking, per state.
    fn emit(&mut self, mut text: &str, sink: &mut dyn FnMut(PieceRef<'_>)) {
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
        if self.state == State::Think {
            self.think_fresh = false;
            sink(PieceRef::Thinking(text));
        } else {
            sink(PieceRef::Text(text));
        }
    }
}
