//! Call resolution: which definition(s) each stored call site calls, with a
//! confidence, across files and for every indexed language.
//!
//! The rules are language-neutral and read the language table for the few
//! differences (separator, what `import a.b` binds, constructor names,
//! implicit `this`). In order:
//! 1. a bare name: nested and enclosing definitions, the file's top level,
//!    imported bindings (aliases and re-exports followed), the enclosing class
//!    when the language has an implicit `this`; a class found this way means
//!    its constructor;
//! 2. `self.m` / `this.m` / `cls.m`: the enclosing class, then its bases;
//! 3. `x.m` / `x::m`: `x` as an imported module, package or file (Rust
//!    `crate::`/`super::`/`self::` too), or as a class or type with method `m`;
//! 4. otherwise, by name alone when few definitions carry that name.
//!
//! `exact` edges come from scopes and imports, `inferred` ones from a guess at
//! a receiver's type (base classes, another file's `impl`), `name_only` from the
//! name alone. Unresolved calls keep no edge but stay in `calls`.

mod arguments;
mod bindings;
mod fact_diff;
mod flow;
mod hierarchy;
mod invalidation;
mod members;
mod outside;
mod pass;
mod resolve;
mod run;
mod scope;
mod table;

pub(crate) use invalidation::Invalidation;
pub(crate) use members::KeyOwner;
pub(crate) use pass::{BindingSite, Graph};
pub(crate) use run::resolve_calls;
pub(crate) use table::Loading;
