//! Test-only helpers shared by the integration tests of every evident crate.
//!
//! It owns the things a test needs that are not the code under test: a real
//! HTTP server that replays scripted model replies ([`fake_server`]), builders
//! for those scripts ([`script`]), a runner that starts the `evident` binary
//! with a clean environment and a private HOME ([`cli`]), git and file
//! helpers, the repository built to be attacked ([`hostile_repo`]), the local
//! llama-server ([`llama`]), a pseudo-terminal ([`pty`]), and the rule for tests that need a resource this
//! machine may lack ([`skip`]).
//!
//! It must not depend on any evident crate (every crate's tests use it, and a
//! dependency cycle would compile two copies of the code under test), and it
//! is never a normal dependency: only `[dev-dependencies]` name it.

pub mod cli;
pub mod fake_server;
pub mod fs;
pub mod git;
pub mod hostile_repo;
pub mod llama;
pub mod mcp;
pub mod pty;
pub mod script;
pub mod skip;

pub use fake_server::{dead_address, letter_vector, End, FakeServer, Script};

/// A seed for a randomised test: `EVIDENT_TEST_SEED` when set (to replay a
/// failure), else the clock. Printed either way.
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("EVIDENT_TEST_SEED") {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("EVIDENT_TEST_SEED={text:?} is not a u64")),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    };
    eprintln!("{test}: seed {seed} (replay with EVIDENT_TEST_SEED={seed})");
    seed
}
