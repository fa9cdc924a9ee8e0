//! What the parser is shown: the text with repairs of the same length, so
//! every byte offset, line and column is the text's own, and names,
//! signatures and snippets are still read from the text as written. Every
//! parse of a file (extraction, locals, object keys) reads this view.

use std::borrow::Cow;

use crate::lang::LanguageSpec;

/// `source` as the parser of `spec`'s language should read it.
pub fn parser_text<'s>(spec: &LanguageSpec, source: &'s str) -> Cow<'s, str> {
    let blanked = blank_identifiers(source, spec.blank_identifiers);
    if spec.lines_start_members.is_empty() {
        return blanked;
    }
    match separate_members(&blanked, spec.lines_start_members) {
        Cow::Owned(separated) => Cow::Owned(separated),
        Cow::Borrowed(_) => blanked,
    }
}

/// `source` with each whole-word occurrence of `words` replaced by spaces.
/// One pass over the identifiers; borrowed when nothing is blanked.
pub(crate) fn blank_identifiers<'s>(source: &'s str, words: &[&str]) -> Cow<'s, str> {
    if words.is_empty() {
        return Cow::Borrowed(source);
    }
    let bytes = source.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut blanked: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        if is_word(bytes[i]) && (i == 0 || !is_word(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            let word = &source[start..i];
            if words.contains(&word) {
                let out = blanked.get_or_insert_with(|| bytes.to_vec());
                out[start..i].fill(b' ');
            }
        } else {
            i += 1;
        }
    }
    match blanked {
        // Only ASCII identifier bytes were replaced by ASCII spaces.
        Some(out) => Cow::Owned(String::from_utf8(out).unwrap_or_default()),
        None => Cow::Borrowed(source),
    }
}

/// `source` with a `;` in the indentation of each line that starts (after at
/// least one space or tab) with one of `starts`, where the text before the
/// line ends a member: a name, a closing bracket or a string. TypeScript
/// reads no type arguments across a line break, so `): T` followed by a
/// line `<U>(x: U): U` is two call signatures, which a grammar that reads
/// `T<U>` takes for one broken one.
fn separate_members<'s>(source: &'s str, starts: &[u8]) -> Cow<'s, str> {
    let bytes = source.as_bytes();
    let ends_member = |b: u8| {
        b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'$' | b')' | b']' | b'>' | b'}' | b'"' | b'\'')
    };
    let mut out: Option<Vec<u8>> = None;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let indent = bytes[line_start..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let first = line_start + indent;
        if indent > 0 && first < bytes.len() && starts.contains(&bytes[first]) {
            let before = bytes[..line_start]
                .iter()
                .rposition(|b| !b.is_ascii_whitespace());
            if before.is_some_and(|at| ends_member(bytes[at])) {
                out.get_or_insert_with(|| bytes.to_vec())[first - 1] = b';';
            }
        }
        line_start = match bytes[first.min(bytes.len())..]
            .iter()
            .position(|b| *b == b'\n')
        {
            Some(newline) => first + newline + 1,
            None => bytes.len(),
        };
    }
    match out {
        // Only an ASCII space or tab was replaced by an ASCII `;`.
        Some(out) => Cow::Owned(String::from_utf8(out).unwrap_or_default()),
        None => Cow::Borrowed(source),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_starts_a_member_is_separated_from_the_last() {
        let text = "interface F {\n    <T>(v: T): Box<T>\n    <T>(v?: T): T\n}\n";
        let shown = separate_members(text, b"<");
        assert_eq!(
            shown,
            "interface F {\n    <T>(v: T): Box<T>\n   ;<T>(v?: T): T\n}\n"
        );
        assert_eq!(shown.len(), text.len());
    }

    #[test]
    fn continuations_and_unindented_lines_are_left_alone() {
        for text in [
            "const f =\n    <T>(x: T) => x\n",
            "call(a,\n    <any>b)\n",
            "<T>(v: T): T\n<U>(v: U): U\n",
        ] {
            assert_eq!(separate_members(text, b"<"), text, "{text:?}");
        }
    }

    #[test]
    fn jsx_children_are_not_members() {
        let tsx = crate::lang::by_name("tsx").unwrap();
        let text = "const a = (\n  <div>\n    <span/>\n  </div>\n)\n";
        assert_eq!(parser_text(tsx, text), text);
        let ts = crate::lang::by_name("typescript").unwrap();
        let shown = parser_text(ts, "interface F {\n  a(): T\n  <U>(u: U): U\n}\n");
        assert!(shown.contains("\n ;<U>"), "{shown:?}");
    }

    #[test]
    fn identifiers_are_blanked_to_spaces_of_their_length() {
        assert_eq!(
            blank_identifiers("static int __init f(void)", &["__init"]),
            "static int        f(void)"
        );
        assert_eq!(blank_identifiers("__initx", &["__init"]), "__initx");
    }
}
