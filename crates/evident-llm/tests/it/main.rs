//! `evident-llm`'s integration tests, one binary: each file is a module.

mod clients;
mod conformance;
mod faults;
mod fuzz;
mod real_model;
mod splitter;
