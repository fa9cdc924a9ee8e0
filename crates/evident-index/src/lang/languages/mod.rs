//! One file per language (or family): its row of the language table and
//! the queries it compiles.

mod bash;
mod c_family;
mod csharp;
mod go;
mod java;
mod js_family;
mod kotlin;
mod lua;
mod php;
mod python;
mod ruby;
mod rust;
mod scala;
mod swift;

pub(super) use bash::BASH;
pub(super) use c_family::{C, CPP};
pub(super) use csharp::CSHARP;
pub(super) use go::GO;
pub(super) use java::JAVA;
pub(super) use js_family::{JAVASCRIPT, TSX, TYPESCRIPT};
pub(super) use kotlin::KOTLIN;
pub(super) use lua::LUA;
pub(super) use php::PHP;
pub(super) use python::PYTHON;
pub(super) use ruby::RUBY;
pub(super) use rust::RUST;
pub(super) use scala::SCALA;
pub(super) use swift::SWIFT;
