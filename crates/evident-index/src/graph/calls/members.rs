//! What an object key names, for `def`: a member of the values its object
//! stands for (`lang::members` reads the object's context from the file).

use super::pass::*;
use super::table::Symbol;
use crate::evidence::Kind;
use crate::lang::extract::Binding;

/// Where the members of a key's object come from, as the graph evaluates it.
pub(crate) enum KeyOwner<'a> {
    /// The value of a written expression (`this`, `config`, `this.options`).
    Expression(&'a str),
    /// An instance of a written type.
    Type(&'a str),
    /// The parameter at `position` of a function (or a class's constructor).
    Parameter { function: i64, position: usize },
    /// What the members an enclosing key names are declared or assigned to be.
    Members {
        ids: &'a [i64],
        sites: &'a [BindingSite],
    },
}

impl Graph<'_> {
    /// The definitions and attribute bindings `attribute` names among the
    /// members of what `owner` stands for, in `scope` of `file`; and whether
    /// anything is known of what it stands for (a repository type, or one
    /// from outside).
    pub(crate) fn key_targets(
        &self,
        file: i64,
        scope: Option<i64>,
        owner: KeyOwner<'_>,
        attribute: &str,
    ) -> (Vec<i64>, Vec<BindingSite>, bool) {
        // A parameter declared a type that is not followed (or of something
        // not a function) is known to be something, though not what.
        let mut typed = false;
        let values = match owner {
            KeyOwner::Expression(expression) => self.values_of_expr(file, scope, expression),
            KeyOwner::Type(ty) => self.values_of_binding(file, scope, &Binding::Type.encode(ty)),
            KeyOwner::Parameter { function, position } => {
                let (values, declared) = self.declared_parameter(function, position);
                typed = declared;
                values
            }
            KeyOwner::Members { ids, sites } => {
                let mut values: Vec<Value> = ids
                    .iter()
                    .flat_map(|id| self.declared_member(*id))
                    .collect();
                for (file, scope, stored) in sites {
                    values.extend(self.values_of_binding(*file, *scope, stored));
                }
                values
            }
        };
        let (mut ids, mut sites) = self.members_of_values(&values, attribute);
        ids.sort_unstable();
        ids.dedup();
        sites.sort();
        sites.dedup();
        (ids, sites, typed || !values.is_empty())
    }

    /// The members `attribute` names on the classes among `values`: the
    /// nearest class in each one's linearization that defines or binds it
    /// (where fields are declared, one that defines it, before any binding).
    pub(super) fn members_of_values(
        &self,
        values: &[Value],
        attribute: &str,
    ) -> (Vec<i64>, Vec<BindingSite>) {
        let (mut ids, mut sites) = (Vec::new(), Vec::new());
        for value in values {
            let (Value::Instance(class) | Value::Class(class)) = *value else {
                continue;
            };
            let order = self.linearization(class);
            let declared = self
                .symbol(class)
                .and_then(|c| self.lang_of(c.file))
                .is_some_and(|l| l.fields_declared);
            if declared {
                if let Some(found) = order.iter().find_map(|c| self.child(*c, attribute)) {
                    ids.extend(found);
                    continue;
                }
            }
            for class in order {
                if let Some(found) = self.child(class, attribute) {
                    ids.extend(found);
                    break;
                }
                if let Some(bound) = self.attributes_of(class).get(attribute) {
                    sites.extend(bound.iter().cloned());
                    break;
                }
            }
        }
        (ids, sites)
    }

    /// What a definition reached by name stands for: a variable (`export
    /// const config: Config = ...`) what its bindings hold, where they say;
    /// anything else (or a variable they say nothing of) itself.
    pub(super) fn values_of_definition(&self, id: i64) -> Vec<Value> {
        let variable = |s: &Symbol| matches!(s.kind, Kind::Variable | Kind::Constant);
        if self.symbol(id).is_some_and(variable) {
            let held = self.declared_member(id);
            if !held.is_empty() {
                return held;
            }
        }
        vec![self.value_of_definition(id)]
    }

    /// What a member definition (a field, a property signature, a variable)
    /// is declared or assigned to be, by its bindings beside it.
    fn declared_member(&self, id: i64) -> Vec<Value> {
        let Some(s) = self.symbol(id) else {
            return Vec::new();
        };
        let (file, scope) = (s.file, s.parent);
        let stored = self.bound_in(file, scope, &s.name).unwrap_or_default();
        self.deeper(|| {
            stored
                .iter()
                .flat_map(|stored| self.values_of_binding(file, scope, stored))
                .collect()
        })
    }

    /// What the parameter at `position` of `function` is declared to be (a
    /// class stands for its constructor), and whether it declares a type
    /// at all (anything but a function or a method: it cannot tell).
    fn declared_parameter(&self, function: i64, position: usize) -> (Vec<Value>, bool) {
        let function = self.constructor_of(function);
        let callable = |f: &Symbol| matches!(f.kind, Kind::Function | Kind::Method);
        let Some(file) = self
            .symbol(function)
            .filter(|f| callable(f))
            .map(|f| f.file)
        else {
            return (Vec::new(), true);
        };
        let Some(name) = self.parameter_name(function, position) else {
            return (Vec::new(), false);
        };
        let stored = self
            .bound_in(file, Some(function), &name)
            .unwrap_or_default();
        let types: Vec<_> = stored
            .iter()
            .filter(|v| Binding::decode(v).0 == Binding::Type)
            .collect();
        let values = types
            .iter()
            .flat_map(|v| self.values_of_binding(file, Some(function), v))
            .collect();
        (values, !types.is_empty())
    }
}
