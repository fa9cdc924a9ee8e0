//! The few pieces of syntax that language-neutral code reads in names and
//! callees, kept with the rest of what evident knows of languages: how
//! member access is written (`.`, `::`, `?.`) and the constructor keyword
//! (`new Foo(...)`).

/// The path separator of the languages whose qualified names use one
/// (Rust, C++, PHP, Ruby's constants): `a::b`.
pub const PATH_SEPARATOR: &str = "::";

/// Optional chaining (JavaScript, TypeScript, Kotlin, Swift, C#): `a?.b`.
pub const OPTIONAL_CHAINING: &str = "?.";

/// The keyword a constructor call may carry (`new Foo(...)`), with its space.
const NEW: &str = "new ";

/// `a::b` and `a?.b` read as `a.b`.
pub fn dotted(text: &str) -> String {
    text.replace(PATH_SEPARATOR, ".")
        .replace(OPTIONAL_CHAINING, ".")
}

/// Whether `name` has more than one segment, however they are joined.
pub fn is_qualified(name: &str) -> bool {
    name.contains('.') || name.contains(PATH_SEPARATOR)
}

/// The last segment of `a.b` or `a::b`.
pub fn last_segment(name: &str) -> &str {
    let after_dot = name.rsplit('.').next().unwrap_or(name);
    after_dot.rsplit(PATH_SEPARATOR).next().unwrap_or(after_dot)
}

/// A character of a plain name in any indexed language (`$`: JavaScript, PHP).
pub fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// A plain name (`Layer`), not an expression (`a.b`, `f()`).
pub fn is_identifier(text: &str) -> bool {
    !text.is_empty() && text.chars().all(is_name_char)
}

/// A callee as written without the constructor keyword (`new Foo` → `Foo`).
pub fn without_new(callee: &str) -> &str {
    callee.trim().trim_start_matches(NEW).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_access_reads_as_dots() {
        assert_eq!(dotted("a::b?.c.d"), "a.b.c.d");
        assert_eq!(last_segment("store::Db::new"), "new");
        assert_eq!(last_segment("Engine.compute"), "compute");
        assert!(is_qualified("a::b") && is_qualified("a.b") && !is_qualified("ab"));
        assert_eq!(without_new(" new Widget(1)"), "Widget(1)");
    }
}
