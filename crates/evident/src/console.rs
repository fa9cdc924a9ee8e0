//! Where a command's text goes: the process's stdout and stderr, or, while
//! the daemon answers a request, buffers that travel back to the client.
//!
//! Every command prints through [`out!`], [`outln!`] and [`errln!`], never
//! `print!` itself: that is what makes the daemon's answer byte-identical to
//! a one-shot run (the same code writes the same bytes, only the sink
//! differs). The capture is per thread, and the daemon runs one request at a
//! time on its worker thread.

use std::cell::{Cell, RefCell};
use std::io::{IsTerminal, Write};

use crate::cli::ColorWhen;

/// What one captured command printed.
#[derive(Default)]
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Captured>> = const { RefCell::new(None) };
    static PAINT: Cell<bool> = const { Cell::new(false) };
}

/// Whether `when` colours this process's standard output: `auto` does for
/// a terminal, unless NO_COLOR is set (<https://no-color.org>) or TERM is
/// `dumb`. The daemon's client decides this for its own terminal and sends
/// `always` or `never`.
pub fn colours(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
            std::io::stdout().is_terminal()
                && !set("NO_COLOR")
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

/// Colours the text output of the commands this thread runs next.
pub fn set_paint(on: bool) {
    PAINT.with(|p| p.set(on));
}

/// Whether text output is coloured (see [`set_paint`]).
pub fn paint() -> bool {
    PAINT.with(Cell::get)
}

/// Runs `command` with its output kept instead of printed.
pub fn capture<T>(command: impl FnOnce() -> T) -> (T, Captured) {
    /// Puts the outer sink back, also when `command` panics.
    struct Restore(Option<Captured>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            CAPTURE.with(|c| *c.borrow_mut() = outer);
        }
    }
    let restore = Restore(CAPTURE.with(|c| c.replace(Some(Captured::default()))));
    let result = command();
    let captured = CAPTURE.with(|c| c.take()).unwrap_or_default();
    drop(restore);
    (result, captured)
}

/// Standard output, or the capture.
pub fn write_out(args: std::fmt::Arguments) {
    if !into_capture(args, |c| &mut c.stdout) {
        // As `print!`: a closed pipe ends the command (SIGPIPE), an error panics.
        std::io::stdout()
            .lock()
            .write_fmt(args)
            .expect("failed printing to stdout");
    }
}

/// Standard error, or the capture.
pub fn write_err(args: std::fmt::Arguments) {
    if !into_capture(args, |c| &mut c.stderr) {
        let _ = std::io::stderr().lock().write_fmt(args);
    }
}

/// Writes `args` to the capture's stream; `false` when nothing captures.
fn into_capture(args: std::fmt::Arguments, stream: fn(&mut Captured) -> &mut Vec<u8>) -> bool {
    CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(captured) => {
            let _ = stream(captured).write_fmt(args);
            true
        }
        None => false,
    })
}

/// `print!`, through the console.
macro_rules! out {
    ($($arg:tt)*) => { $crate::console::write_out(format_args!($($arg)*)) };
}

/// `println!`, through the console.
macro_rules! outln {
    () => { $crate::console::write_out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::console::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprintln!`, through the console.
macro_rules! errln {
    ($($arg:tt)*) => { $crate::console::write_err(format_args!("{}\n", format_args!($($arg)*))) };
}
