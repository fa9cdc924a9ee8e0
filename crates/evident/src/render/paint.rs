//! Colour for text output (SGR escapes), in ripgrep's scheme: paths magenta,
//! line numbers green, names bold. Every piece is made printable first, so
//! the only escapes in the output are these.

use evident_index::printable;

/// Whether the pieces get colour (`--color`, NO_COLOR: see `console::colours`).
#[derive(Clone, Copy)]
pub struct Paint(pub bool);

impl Paint {
    fn sgr(self, code: &str, text: &str) -> String {
        let text = printable(text);
        if self.0 {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.into_owned()
        }
    }

    pub fn path(self, text: &str) -> String {
        self.sgr("35", text)
    }

    pub fn line_number(self, text: &str) -> String {
        self.sgr("32", text)
    }

    pub fn name(self, text: &str) -> String {
        self.sgr("1", text)
    }

    pub fn kind(self, text: &str) -> String {
        self.sgr("36", text)
    }
}
