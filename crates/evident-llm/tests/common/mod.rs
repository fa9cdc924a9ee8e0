//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod fake_server;
pub mod llama;

pub use fake_server::*;
