//! What a change to a file's flow facts means to other files: a change that
//! only adds or removes definitions (with what belongs to them alone) is seen
//! only by the files that spell one of their names, while any other change
//! (a value, a base, an attribute) flows on to every importer.
//!
//! A flow fact is `owner \t name \t value` ([`super::invalidation`]); a
//! definition's fact is `qualified \t <definition> \t kind`.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::evidence::Kind;
use crate::lang::extract::last_identifier;

const DEFINITION: &str = "<definition>";
const BASES: &str = "<bases>";

/// The names (last identifiers) of the definitions added or removed between
/// `before` and `after`, when every other difference belongs to one of them:
/// it is owned by one (a return, a class body, a nested definition's facts;
/// an attribute only when a class was added or removed) or binds one (the
/// value of a new top-level `X`). `None` when something else changed, or
/// nothing did.
pub(super) fn names_only_change(
    before: &[String],
    after: &[String],
    module: &str,
) -> Option<HashSet<String>> {
    let differing = multiset_difference(before, after);
    let facts: Vec<[&str; 3]> = differing.iter().filter_map(|f| parse(f)).collect();
    if facts.len() != differing.len() {
        return None;
    }
    let definitions = facts.iter().filter(|[_, name, _]| *name == DEFINITION);
    let changed: HashSet<&str> = definitions.clone().map(|[owner, ..]| *owner).collect();
    let classes: HashSet<&str> = definitions
        .filter(|[_, _, kind]| Kind::parse(kind).is_some_and(|k| k.is_class_like()))
        .map(|[owner, ..]| *owner)
        .collect();
    let kept_classes: HashSet<&str> = before
        .iter()
        .chain(after)
        .filter_map(|f| parse(f))
        .filter(|[owner, name, kind]| {
            *name == DEFINITION
                && !changed.contains(owner)
                && Kind::parse(kind).is_some_and(|k| k.is_class_like())
        })
        .map(|[owner, ..]| owner)
        .collect();
    // A member of a kept class (a new method) is reached through instances,
    // which files that never spell its name hold: what it returns flows on.
    let by_name = |q: &str| !kept_classes.contains(parent_of(q));
    let belongs = |[owner, name, _]: &[&str; 3]| -> bool {
        if *name == DEFINITION {
            return true;
        }
        // An attribute set in a new method (`self.x = ...`) is its class's,
        // which other files reach without the method's name.
        let attribute = name.contains('.');
        if attribute {
            return classes.iter().any(|q| within(owner, q) && by_name(q));
        }
        if changed.iter().any(|q| within(owner, q)) {
            return changed.iter().all(|q| !within(owner, q) || by_name(q));
        }
        let scope = if owner.is_empty() { module } else { owner };
        *name != BASES && changed.iter().any(|q| binds(q, scope, name))
    };
    if changed.is_empty() || !facts.iter().all(belongs) {
        return None;
    }
    // A member of an added or removed class is reached through its class,
    // whose name stands for it.
    let names = changed
        .iter()
        .filter(|q| !changed.contains(parent_of(q)))
        .map(|q| last_identifier(q).to_string())
        .collect();
    let differing: HashSet<&str> = differing.iter().map(String::as_str).collect();
    let kept: Vec<[&str; 3]> = after
        .iter()
        .filter(|f| !differing.contains(f.as_str()))
        .filter_map(|f| parse(f))
        .collect();
    with_kept_bindings(names, &kept)
}

/// `names` with the kept bindings whose values spell one of them, however
/// indirectly (`return D()` before `D` is defined: calls of the function
/// now return something else). Such a binding is still reached by its
/// name: a function's return, a top-level value. `None` when a class's
/// attribute or bases spell one: instances carry those to files that
/// never spell a name.
fn with_kept_bindings(mut names: HashSet<String>, kept: &[[&str; 3]]) -> Option<HashSet<String>> {
    let kinds: HashMap<&str, &str> = kept
        .iter()
        .filter(|[_, name, _]| *name == DEFINITION)
        .map(|[owner, _, kind]| (*owner, *kind))
        .collect();
    let values = kept.iter().filter(|[_, name, _]| *name != DEFINITION);
    loop {
        let mut grew = false;
        for [owner, name, value] in values.clone() {
            let spells = value
                .split(|c: char| !is_identifier_char(c))
                .any(|word| names.contains(word));
            if !spells {
                continue;
            }
            // A method's return is reached through instances, as above.
            let function = kinds.get(owner).and_then(|k| Kind::parse(k)) == Some(Kind::Function);
            let binding = match (owner.is_empty(), *name) {
                (true, name) if !name.contains('.') && name != BASES => name,
                (false, "return") if function => last_identifier(owner),
                _ => return None,
            };
            grew |= names.insert(binding.to_string());
        }
        if !grew {
            return Some(names);
        }
    }
}

/// The qualified names of the definitions added or removed between
/// `before` and `after`.
pub(super) fn changed_definitions(before: &[String], after: &[String]) -> HashSet<String> {
    multiset_difference(before, after)
        .iter()
        .filter_map(|f| parse(f))
        .filter(|[_, name, _]| *name == DEFINITION)
        .map(|[owner, ..]| owner.to_string())
        .collect()
}

/// The rows of a definition surface (`qualified \t kind \t declared`)
/// that belong to none of the `changed` definitions, in order.
pub(super) fn surface_outside<'s>(
    surface: &'s [String],
    changed: &HashSet<String>,
) -> Vec<&'s str> {
    surface
        .iter()
        .map(String::as_str)
        .filter(|row| {
            let qualified = row.split('\t').next().unwrap_or("");
            !changed.iter().any(|q| within(qualified, q))
        })
        .collect()
}

/// What a change of classes' bases reaches, when one changed: the names
/// defined in each class whose bases fact was added, removed or changed (an
/// ancestor's `self.m()` may now reach, or no longer reach, its `m`; a call
/// of the class may now run another constructor), and the bases those
/// facts name, by last identifier.
pub(super) fn rebased(
    before: &[String],
    after: &[String],
) -> Option<(HashSet<String>, HashSet<String>)> {
    let differing = multiset_difference(before, after);
    let bases: Vec<[&str; 3]> = differing
        .iter()
        .filter_map(|f| parse(f))
        .filter(|[_, name, _]| *name == BASES)
        .collect();
    if bases.is_empty() {
        return None;
    }
    let names = before
        .iter()
        .chain(after)
        .filter_map(|f| parse(f))
        .filter(|[owner, name, _]| {
            *name == DEFINITION && bases.iter().any(|[class, ..]| within(owner, class))
        })
        .map(|[owner, ..]| last_identifier(owner).to_string())
        .collect();
    let named = bases
        .iter()
        .flat_map(|[_, _, written]| written.lines())
        .map(|b| last_identifier(b).to_string())
        .collect();
    Some((names, named))
}

/// Whether the change moves a constructor where names do not follow it: a
/// kept class gained or lost one, or a kept class's bases changed in a file
/// that defines one (every call of its subclasses may now run another).
/// A class added or removed with its constructor is followed by its name.
pub(super) fn moves_constructors(
    before: &[String],
    after: &[String],
    is_constructor: impl Fn(&str) -> bool,
) -> bool {
    let differing = multiset_difference(before, after);
    let facts: Vec<[&str; 3]> = differing.iter().filter_map(|f| parse(f)).collect();
    let changed: HashSet<&str> = facts
        .iter()
        .filter(|[_, name, _]| *name == DEFINITION)
        .map(|[owner, ..]| *owner)
        .collect();
    let kept = |class: &str| !changed.contains(class);
    let gained_or_lost = facts.iter().any(|[owner, name, _]| {
        *name == DEFINITION && is_constructor(last_identifier(owner)) && kept(parent_of(owner))
    });
    let rebased = facts
        .iter()
        .any(|[owner, name, _]| *name == BASES && kept(owner));
    gained_or_lost || (rebased && defines_constructor(before.iter().chain(after), is_constructor))
}

/// How many of `facts` define a constructor.
pub(super) fn constructor_count<'a>(
    facts: impl Iterator<Item = &'a String>,
    is_constructor: impl Fn(&str) -> bool,
) -> i64 {
    let defines = |f: &String| {
        parse(f).is_some_and(|[owner, name, _]| {
            name == DEFINITION && is_constructor(last_identifier(owner))
        })
    };
    facts.filter(|f| defines(f)).count() as i64
}

/// Whether any of `facts` defines a constructor.
pub(super) fn defines_constructor<'a>(
    facts: impl Iterator<Item = &'a String>,
    is_constructor: impl Fn(&str) -> bool,
) -> bool {
    constructor_count(facts, is_constructor) > 0
}

fn parse(fact: &str) -> Option<[&str; 3]> {
    let mut parts = fact.splitn(3, '\t');
    Some([parts.next()?, parts.next()?, parts.next()?])
}

/// The facts one side has more often than the other.
fn multiset_difference(before: &[String], after: &[String]) -> Vec<String> {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for fact in before {
        *counts.entry(fact.as_str()).or_default() += 1;
    }
    for fact in after {
        *counts.entry(fact.as_str()).or_default() -= 1;
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n != 0)
        .map(|(fact, _)| fact.to_string())
        .collect()
}

/// `pkg.m.C` for `pkg.m.C.run`, `m::T` for `m::T::f`.
fn parent_of(qualified: &str) -> &str {
    let name = last_identifier(qualified);
    qualified[..qualified.len() - name.len()].trim_end_matches(|c: char| !is_identifier_char(c))
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// `owner` is `qualified` or nested in it (`a.f` in `a.f.inner`, `m::T` in `m::T::f`).
fn within(owner: &str, qualified: &str) -> bool {
    owner
        .strip_prefix(qualified)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| !is_identifier_char(c)))
}

/// `qualified` is `name` declared directly in `scope` (`pkg.m.X` for `X` in `pkg.m`).
fn binds(qualified: &str, scope: &str, name: &str) -> bool {
    let Some(head) = qualified.strip_suffix(name) else {
        return false;
    };
    if head.ends_with(is_identifier_char) {
        return false;
    }
    head.trim_end_matches(|c: char| !is_identifier_char(c)) == scope
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.replace(" | ", "\t")).collect()
    }

    fn names(before: &[&str], after: &[&str]) -> Option<Vec<String>> {
        let found = names_only_change(&facts(before), &facts(after), "pkg.m")?;
        let mut found: Vec<String> = found.into_iter().collect();
        found.sort();
        Some(found)
    }

    const BASE: &[&str] = &[
        "pkg.m.C | <definition> | class",
        "pkg.m.C.run | <definition> | method",
        "pkg.m.C.run | self.conn | Conn()",
        " | v | make()",
    ];

    #[test]
    fn a_new_function_with_its_return_is_a_change_of_names() {
        let mut after = BASE.to_vec();
        after.extend([
            "pkg.m.build | <definition> | function",
            "pkg.m.build | return | C()",
        ]);
        assert_eq!(names(BASE, &after), Some(vec!["build".into()]));
        assert_eq!(
            names(&after, BASE),
            Some(vec!["build".into()]),
            "a removal too"
        );
    }

    #[test]
    fn a_new_top_level_variable_and_its_value_are_a_change_of_names() {
        let mut after = BASE.to_vec();
        after.extend(["pkg.m.w | <definition> | variable", " | w | C()"]);
        assert_eq!(names(BASE, &after), Some(vec!["w".into()]));
    }

    #[test]
    fn a_renamed_class_names_both_names_and_not_its_members() {
        let after: Vec<&str> = BASE
            .iter()
            .map(|f| match *f {
                "pkg.m.C | <definition> | class" => "pkg.m.D | <definition> | class",
                "pkg.m.C.run | <definition> | method" => "pkg.m.D.run | <definition> | method",
                "pkg.m.C.run | self.conn | Conn()" => "pkg.m.D.run | self.conn | Conn()",
                other => other,
            })
            .collect();
        // `run` is reached through `C` or `D`, whose names stand for it.
        assert_eq!(names(BASE, &after), Some(vec!["C".into(), "D".into()]));
    }

    #[test]
    fn values_attributes_and_bases_of_kept_definitions_flow_on() {
        let changed_value: Vec<&str> = BASE
            .iter()
            .map(|f| {
                if f.starts_with(" | v") {
                    " | v | build()"
                } else {
                    f
                }
            })
            .collect();
        assert_eq!(names(BASE, &changed_value), None, "a value changed");
        let mut new_method = BASE.to_vec();
        new_method.extend([
            "pkg.m.C.stop | <definition> | method",
            "pkg.m.C.stop | self.done | Flag()",
        ]);
        assert_eq!(
            names(BASE, &new_method),
            None,
            "the class gained an attribute"
        );
        let mut returning = BASE.to_vec();
        returning.extend([
            "pkg.m.C.make | <definition> | method",
            "pkg.m.C.make | return | C()",
        ]);
        assert_eq!(
            names(BASE, &returning),
            None,
            "instances reach what a new method returns"
        );
        let mut bare = BASE.to_vec();
        bare.push("pkg.m.C.stop | <definition> | method");
        assert_eq!(
            names(BASE, &bare),
            Some(vec!["stop".into()]),
            "calls of a bare new method spell it"
        );
        let mut new_bases = BASE.to_vec();
        new_bases.push("pkg.m.C | <bases> | Base");
        assert_eq!(names(BASE, &new_bases), None, "a kept class gained a base");
        let mut new_class = BASE.to_vec();
        new_class.extend(["pkg.m.E | <definition> | class", "pkg.m.E | <bases> | C"]);
        assert_eq!(
            names(BASE, &new_class),
            Some(vec!["E".into()]),
            "a new class's bases are its own"
        );
        assert_eq!(names(BASE, BASE), None, "nothing changed");
    }

    #[test]
    fn a_kept_value_that_spells_a_new_name_is_reached_by_its_own_name() {
        let before = [
            BASE,
            &[
                "pkg.m.f | <definition> | function",
                "pkg.m.f | return | Widget()",
            ],
        ]
        .concat();
        let mut method = before.clone();
        method.extend([
            "pkg.m.C.get | <definition> | method",
            "pkg.m.C.get | return | Widget()",
        ]);
        let mut method_after = method.clone();
        method_after.push("pkg.m.Widget | <definition> | class");
        assert_eq!(
            names(&method, &method_after),
            None,
            "C.get's return is reached through instances"
        );
        let mut after = before.clone();
        after.push("pkg.m.Widget | <definition> | class");
        let widget_and_f = Some(vec!["Widget".to_string(), "f".to_string()]);
        assert_eq!(
            names(&before, &after),
            widget_and_f,
            "f now returns a Widget"
        );
        assert_eq!(
            names(&after, &before),
            widget_and_f,
            "and then no longer does"
        );
        let mut chained = after.clone();
        chained.push(" | g | f()");
        let mut chained_before = before.clone();
        chained_before.push(" | g | f()");
        assert_eq!(
            names(&chained_before, &chained),
            Some(vec!["Widget".into(), "f".into(), "g".into()]),
            "g holds what f returns"
        );
        let mut attribute = before.clone();
        attribute.push("pkg.m.C.run | self.w | Widget()");
        let mut attribute_after = attribute.clone();
        attribute_after.push("pkg.m.Widget | <definition> | class");
        assert_eq!(
            names(&attribute, &attribute_after),
            None,
            "instances carry C's w anywhere"
        );
        let mut unrelated = before.clone();
        unrelated.push("pkg.m.Widgets | <definition> | class");
        assert_eq!(
            names(&before, &unrelated),
            Some(vec!["Widgets".into()]),
            "whole words only"
        );
    }

    #[test]
    fn rebasing_reaches_the_members_of_the_classes_whose_bases_changed() {
        let mut after = BASE.to_vec();
        after.extend([
            "pkg.m.E | <definition> | class",
            "pkg.m.E | <bases> | pkg.Base",
            "pkg.m.E.go | <definition> | method",
        ]);
        let (names, bases) = rebased(&facts(BASE), &facts(&after)).unwrap();
        let sorted = |set: HashSet<String>| {
            let mut v: Vec<String> = set.into_iter().collect();
            v.sort();
            v
        };
        assert_eq!(sorted(names), vec!["E", "go"], "not C's run");
        assert_eq!(sorted(bases), vec!["Base"]);
        assert!(rebased(&facts(BASE), &facts(BASE)).is_none());
    }

    #[test]
    fn constructors_move_with_kept_classes_only() {
        let init = |name: &str| name == "__init__";
        let moves = |after: &[&str]| moves_constructors(&facts(BASE), &facts(after), init);
        let mut gained = BASE.to_vec();
        gained.push("pkg.m.C.__init__ | <definition> | method");
        assert!(moves(&gained), "a kept class gained a constructor");
        let mut new_class = BASE.to_vec();
        new_class.extend([
            "pkg.m.E | <definition> | class",
            "pkg.m.E.__init__ | <definition> | method",
        ]);
        assert!(!moves(&new_class), "a new class comes with its own");
        let mut rebased = gained.clone();
        rebased.push("pkg.m.C | <bases> | Base");
        assert!(
            moves_constructors(&facts(&gained), &facts(&rebased), init),
            "a kept class rebased"
        );
        assert!(!moves(BASE));
    }

    #[test]
    fn nesting_and_binding_stop_at_a_name_boundary() {
        assert!(within("pkg.m.f.inner", "pkg.m.f"));
        assert!(within("m::T::f", "m::T"));
        assert!(!within("pkg.m.fx", "pkg.m.f"));
        assert!(binds("pkg.m.X", "pkg.m", "X"));
        assert!(binds("m::T::X", "m::T", "X"));
        assert!(!binds("pkg.m.XX", "pkg.m", "X"));
        assert!(!binds("pkg.mm.X", "pkg.m", "X"));
    }
}
