//! TypeScript declarations that name members and globals, from the
//! language's rules: an object type alias has the properties its object
//! types declare; an enum's members are reached through the enum; a
//! module-level binding of any expression is a definition; the top-level
//! declarations of a file that imports and exports nothing (a script) are
//! global; a parameter property is a field; type arguments never follow a
//! line break, so a line that opens with `<` starts a new call signature.

use evident_index::Index;

use super::{answers_at_word, edges, indexed_files};

const TYPES: &str = "\
export type Options = {
  deep: boolean
  make(x: number): number
}
export type Change = { name: string } & ({ type: 'add'; added: number } | { type: 'remove' })
export enum State {
  Idle = -1,
  Done,
}
export var isMap = create('Map') as (thing: unknown) => boolean
const errors = { 0: 'bad' } as const
function create(kind: string) { return (thing: unknown) => kind === String(thing) }
export class Atom {
  constructor(public label = 'atom') {}
  read() { return this.label + errors[0] }
}
export interface Factory {
  <T>(value: T, options?: Options): Array<T>
  <T>(value?: T, options?: Options): T
  box: number
}
export type Ensure<T, K extends keyof T> = T & { [_ in K]-?: T[_] }
export interface Source<T> { load: () => T }
export interface Loader<T> extends Ensure<Source<T>, 'load'>, Options { ready: boolean }
export function start(o: Loader<number>) { return [o.load, o.deep, o.ready] }
";

const USE: &str = "\
import { Options, Change, State, isMap, Factory } from './types';

export function use(o: Options, c: Change, f: Factory) {
  if (__DEV__ && o.deep) { o.make(1) }
  return [c.type, c.name, State.Done, isMap(c), f.box];
}
export const alias = create;
";

const GLOBALS: &str = "declare const __DEV__: boolean\n";

fn indexed() -> (tempfile::TempDir, Index) {
    indexed_files(&[
        ("types.ts", TYPES),
        ("use.ts", USE),
        ("globals.d.ts", GLOBALS),
    ])
}

/// `path:line name` of each answer at the `nth` occurrence of `word` on `line`.
fn at(index: &Index, path: &str, line: u32, word: &str, nth: usize) -> Vec<String> {
    let source = if path == "types.ts" { TYPES } else { USE };
    answers_at_word(index, (path, source), line, word, nth)
}

#[test]
fn an_object_type_alias_has_the_properties_of_its_object_types() {
    let (dir, index) = indexed();
    assert_eq!(at(&index, "use.ts", 4, "deep", 0), ["types.ts:2 deep"]);
    assert_eq!(at(&index, "use.ts", 4, "make", 0), ["types.ts:3 make"]);
    // Inside an intersection, and each member of a union that declares it.
    assert_eq!(at(&index, "use.ts", 5, "name", 0), ["types.ts:5 name"]);
    assert_eq!(
        at(&index, "use.ts", 5, "type", 0),
        ["types.ts:5 type", "types.ts:5 type"]
    );
    let all = edges(dir.path());
    assert!(
        all.iter()
            .any(|e| e.starts_with("use.ts:4 o.make -> types.Options.make")),
        "{}",
        all.join("\n")
    );
}

#[test]
fn an_interface_inherits_through_aliases_and_generic_aliases_arguments() {
    let (_dir, index) = indexed();
    // `extends Ensure<Source<T>, 'load'>` is `Source<T> & {...}`.
    assert_eq!(at(&index, "types.ts", 25, "load", 0), ["types.ts:23 load"]);
    // `extends Options`, an object type alias.
    assert_eq!(at(&index, "types.ts", 25, "deep", 0), ["types.ts:2 deep"]);
    assert_eq!(
        at(&index, "types.ts", 25, "ready", 0),
        ["types.ts:24 ready"]
    );
}

#[test]
fn an_enum_member_is_reached_through_its_enum() {
    let (_dir, index) = indexed();
    assert_eq!(at(&index, "use.ts", 5, "Done", 0), ["types.ts:8 Done"]);
}

#[test]
fn module_level_bindings_of_typescript_expressions_are_definitions() {
    let (_dir, index) = indexed();
    // `export var isMap = create('Map') as ...`, imported and called.
    assert_eq!(at(&index, "use.ts", 5, "isMap", 0), ["types.ts:10 isMap"]);
    // `const errors = {...} as const`, read in a method.
    assert_eq!(
        at(&index, "types.ts", 15, "errors", 0),
        ["types.ts:11 errors"]
    );
}

#[test]
fn a_script_files_declarations_are_global() {
    let (_dir, index) = indexed();
    assert_eq!(
        at(&index, "use.ts", 4, "__DEV__", 0),
        ["globals.d.ts:1 __DEV__"]
    );
    // A module's top-level names are not: use.ts does not see `create`.
    assert!(at(&index, "use.ts", 7, "create", 0).is_empty());
}

#[test]
fn an_untyped_parameter_property_is_a_field() {
    let (_dir, index) = indexed();
    assert_eq!(
        at(&index, "types.ts", 15, "label", 0),
        ["types.ts:14 label"]
    );
}

#[test]
fn a_line_that_opens_with_type_parameters_starts_a_call_signature() {
    let (_dir, index) = indexed();
    // Read as one broken signature, the second hides the parameter and the
    // property after it.
    assert_eq!(
        at(&index, "types.ts", 19, "options", 0),
        ["types.ts:19 options"]
    );
    assert_eq!(at(&index, "use.ts", 5, "box", 0), ["types.ts:20 box"]);
}
