//! Text from a repository made safe to print: file names and code can hold
//! control characters (`ESC [2J`, a newline in a name, a bidirectional
//! override) that a terminal would obey. Every name, path and line a text
//! output shows passes through [`printable`]; JSON output stays exact.

use std::borrow::Cow;

/// `text` with every control character except tab, and every character that
/// reorders text on screen, written as a `\u{..}` escape.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_and_reordering_characters_are_escaped() {
        assert_eq!(printable("src/app.py"), "src/app.py");
        assert_eq!(printable("a\tb"), "a\tb");
        assert_eq!(
            printable("\u{1b}]0;pwned\u{7}\u{1b}[2JRED.py"),
            "\\u{1b}]0;pwned\\u{7}\\u{1b}[2JRED.py"
        );
        assert_eq!(printable("two\nlines"), "two\\u{a}lines");
        assert_eq!(printable("x\u{202e}yp.exe"), "x\\u{202e}yp.exe");
        assert_eq!(printable("\u{9b}31m"), "\\u{9b}31m");
    }
}
