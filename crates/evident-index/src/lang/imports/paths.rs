//! Path arithmetic on repository paths (`/`-separated, relative to the root).

/// The file extensions of JavaScript and TypeScript modules, in the order
/// a specifier without one is tried.
pub(super) const JS_EXTENSIONS: &[&str] =
    &["ts", "tsx", "d.ts", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// The directory part of a path (`""` at the top).
pub(super) fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `dir/rest`, without a leading or trailing `/` when either is empty.
pub(crate) fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rest}"),
    }
}

/// Resolves `.` and `..` segments; `None` when the path climbs above the root.
pub(crate) fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}
