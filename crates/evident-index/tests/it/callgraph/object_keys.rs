//! Object keys and callbacks in TypeScript, from the language's contextual
//! typing: a key of an object literal names the property of the type the
//! literal is written for (a declared variable, `as`, a parameter, an
//! enclosing property's type); a destructured key names the property of
//! the destructured value; an untyped callback parameter has the type the
//! callee declares for it.

use evident_index::Index;

use super::{answers_at_word, edges, indexed_files};

const TYPES: &str = "\
export interface Observer<T> {
  next: (value: T) => void;
  error: (err: unknown) => void;
}
export interface TapObserver<T> extends Observer<T> {
  finalize: () => void;
}
export interface Config {
  retries: number;
  nested: Inner;
}
export interface Inner {
  depth: number;
}
export class Subscriber<T> {
  closed = false;
  protected destination: Observer<T>;
  constructor(destination: Observer<T>) {
    this.destination = destination;
  }
  next(value: T) {
    const { closed, destination } = this;
    if (!closed) destination.next(value);
  }
}
export function operate<T>(init: (source: string, subscriber: Subscriber<T>) => void) {
  return init;
}
export function configure(config: Config) {
  return config.retries;
}
export const defaults: Config = { retries: 1, nested: { depth: 2 } };
export function observe(subscribe: (this: Config, subscriber: Subscriber<number>) => void) {
  return subscribe;
}
";

const USE: &str = "\
import { operate, observe, configure, defaults, TapObserver, Subscriber } from './types';

export function tap<T>() {
  return operate((source, subscriber) => {
    subscriber.next(source);
  });
}
configure({ retries: 3, nested: { depth: 1 } });
const t = { next: () => {}, error: () => {}, finalize: () => {} } as TapObserver<number>;
const n = defaults.retries;
const s = new Subscriber<number>(t);
const plain = { seen: 0, crossDomain: false };
const crossDomain = plain.crossDomain;
enum Kind { NEXT = 'N', ERROR }
type Either = TapObserver<number> | Subscriber<number>;
export function finish(o: Either) { o.finalize(); }
observe((subscriber) => subscriber.next(1));
export function retriesOf() {
  const { retries = 0 } = defaults ?? {};
  return retries;
}
";

fn indexed() -> (tempfile::TempDir, Index) {
    indexed_files(&[("types.ts", TYPES), ("use.ts", USE)])
}

/// `path:line name` of each answer at the `nth` occurrence of `word` on `line`.
fn at(index: &Index, path: &str, line: u32, word: &str, nth: usize) -> Vec<String> {
    let source = if path == "types.ts" { TYPES } else { USE };
    answers_at_word(index, (path, source), line, word, nth)
}

/// An edge `path:line callee -> target` is in the index.
fn assert_edge(root: &std::path::Path, expected: &str) {
    let all = edges(root);
    let found = all.iter().any(|e| e.starts_with(expected));
    assert!(found, "missing {expected}\n{}", all.join("\n"));
}

#[test]
fn a_literal_key_names_the_property_of_its_type() {
    let (_dir, index) = indexed();
    // `const defaults: Config = { retries: 1, nested: { depth: 2 } }`.
    assert_eq!(
        at(&index, "types.ts", 32, "retries", 0),
        ["types.ts:9 retries"]
    );
    assert_eq!(
        at(&index, "types.ts", 32, "nested", 0),
        ["types.ts:10 nested"]
    );
    assert_eq!(
        at(&index, "types.ts", 32, "depth", 0),
        ["types.ts:13 depth"]
    );
    // An argument: the parameter's type, and an enclosing key's.
    assert_eq!(
        at(&index, "use.ts", 8, "retries", 0),
        ["types.ts:9 retries"]
    );
    assert_eq!(at(&index, "use.ts", 8, "depth", 0), ["types.ts:13 depth"]);
    // `as TapObserver<number>`: its own property and an inherited one.
    assert_eq!(
        at(&index, "use.ts", 9, "finalize", 0),
        ["types.ts:6 finalize"]
    );
    assert_eq!(at(&index, "use.ts", 9, "next", 0), ["types.ts:2 next"]);
}

#[test]
fn a_key_nothing_types_defines_its_member() {
    let (_dir, index) = indexed();
    // Not the later `const crossDomain`, which shares the name.
    assert_eq!(
        at(&index, "use.ts", 12, "crossDomain", 0),
        ["use.ts:12 crossDomain"]
    );
    assert_eq!(at(&index, "use.ts", 12, "seen", 0), ["use.ts:12 seen"]);
    assert_eq!(at(&index, "use.ts", 14, "NEXT", 0), ["use.ts:14 NEXT"]);
    assert_eq!(at(&index, "use.ts", 14, "ERROR", 0), ["use.ts:14 ERROR"]);
}

#[test]
fn a_destructured_key_names_the_property_and_binds_the_local() {
    let (_dir, index) = indexed();
    assert_eq!(
        at(&index, "types.ts", 22, "closed", 0),
        ["types.ts:16 closed", "types.ts:22 closed"]
    );
    // A declared field, not the constructor's assignment to it.
    assert_eq!(
        at(&index, "types.ts", 22, "destination", 0),
        ["types.ts:17 destination", "types.ts:22 destination"]
    );
    // `= defaults ?? {}`: the members of `defaults`, an imported `Config`.
    assert_eq!(
        at(&index, "use.ts", 19, "retries", 0),
        ["types.ts:9 retries", "use.ts:19 retries"]
    );
    // An imported variable's declared type gives its members.
    assert_eq!(
        at(&index, "use.ts", 10, "retries", 0),
        ["types.ts:9 retries"]
    );
}

#[test]
fn a_callback_parameter_has_the_type_the_callee_declares() {
    let (dir, index) = indexed();
    assert_eq!(at(&index, "use.ts", 5, "next", 0), ["types.ts:21 next"]);
    // A `this:` parameter is not a position: no call passes it.
    assert_eq!(at(&index, "use.ts", 17, "next", 0), ["types.ts:21 next"]);
    assert_edge(
        dir.path(),
        "use.ts:5 subscriber.next -> types.Subscriber.next",
    );
}

#[test]
fn a_type_alias_stands_for_the_types_it_names() {
    let (dir, index) = indexed();
    assert_eq!(
        at(&index, "use.ts", 16, "finalize", 0),
        ["types.ts:6 finalize"]
    );
    assert_edge(
        dir.path(),
        "use.ts:16 o.finalize -> types.TapObserver.finalize",
    );
}

#[test]
fn a_constructor_call_names_the_class_then_the_constructor() {
    let (_dir, index) = indexed();
    assert_eq!(
        at(&index, "use.ts", 11, "Subscriber", 0),
        ["types.ts:15 Subscriber", "types.ts:18 constructor"]
    );
}
