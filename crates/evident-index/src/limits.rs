//! How long a name or a path given to a query may be. Every door (the
//! command line, MCP, the agent's tools, `serve`) reaches the queries
//! through these checks, and the tool schemas state the same numbers, so a
//! long argument is refused with its length before it reaches SQL.

use crate::error::{Error, Result};

/// A symbol or module name (`symbol`, `callers`, `impact`, `importers`...).
pub const MAX_NAME_CHARS: usize = 200;

/// A path inside the repository.
pub const MAX_PATH_CHARS: usize = 400;

/// `value` trimmed, when it is neither empty nor longer than `max` characters.
pub(crate) fn checked<'a>(what: &str, value: &'a str, max: usize) -> Result<&'a str> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Error::InvalidArgument(format!("{what} is empty")));
    }
    let length = value.chars().count();
    if length > max {
        return Err(Error::InvalidArgument(format!(
            "{what} is {length} characters long; the limit is {max}"
        )));
    }
    Ok(value)
}

pub(crate) fn name<'a>(what: &str, value: &'a str) -> Result<&'a str> {
    checked(what, value, MAX_NAME_CHARS)
}
