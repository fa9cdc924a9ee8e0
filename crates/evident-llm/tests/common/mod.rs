//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod fake_server;
pub mod llama;

#[allow(unused_imports)]
pub use fake_server::*;
