//! `evident-agent`'s integration tests, one binary: each file is a module.

mod common;
mod escape;
mod fuzz;
mod injection;
mod intents;
mod session;
