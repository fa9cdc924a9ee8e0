//! The tools a model may propose: read-only queries over the index, each with
//! the JSON Schema its arguments must match. **This list is the whole of what
//! a model can make evident do**: there is no tool that writes, runs a
//! command or reaches the network, and none can be added from outside the
//! crate at run time (the registry is built here, from this list).

mod arguments;
mod code;
mod contract;
mod sources;
mod summary;
mod table;

pub use contract::{Approval, Tool, ToolContext, ToolError, ToolOutput};
pub use summary::short_qualified;
pub use table::builtin_tools;
