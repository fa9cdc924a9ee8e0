//! `def` on an object key (`{ retries: 1 }`, `const { closed } = this`):
//! the member it names, found through what its object is written for.

use crate::error::Result;
use crate::evidence::{Evidence, Kind};
use crate::graph::calls::{BindingSite, Graph, KeyOwner, Loading};
use crate::lang::members::{key_at, reads_keys, Owner};
use crate::lang::LanguageSpec;
use crate::query::Index;
use crate::snippet::Budget;
use crate::store::graph as rows;

/// Enclosing keys followed outward at most (`{ a: { b: { c: 1 } } }`).
const MAX_KEY_DEPTH: u32 = 4;

/// A key's position in its file, as `def` takes it (1-based).
struct KeyAt<'a> {
    file_id: i64,
    source: &'a str,
    line: u32,
}

/// What a key names: member definitions and attribute bindings; whether
/// every step to them was declared (a type, an exact call edge) rather than
/// inferred; and whether anything is known of what its object is.
#[derive(Default)]
struct Members {
    ids: Vec<i64>,
    sites: Vec<BindingSite>,
    declared: bool,
    known: bool,
}

impl Members {
    fn from_targets(
        (ids, sites, known): (Vec<i64>, Vec<BindingSite>, bool),
        declared: bool,
    ) -> Self {
        Members {
            ids,
            sites,
            declared,
            known,
        }
    }
}

impl Index {
    /// `Some` when `word` at `line:col` is an object key whose member is
    /// found: the member it names, then, for a shorthand key (`{ a }`), what
    /// the name itself is bound to. A literal's key that nothing types
    /// defines the member itself.
    pub(super) fn key_definitions(
        &self,
        file_id: i64,
        rel: &str,
        (line, col): (u32, u32),
        word: &str,
    ) -> Result<Option<Vec<Evidence>>> {
        let conn = self.connection();
        let Some(spec) = crate::lang::by_name(&rows::file_language(conn, file_id)?) else {
            return Ok(None);
        };
        if !reads_keys(spec) {
            return Ok(None);
        }
        let Ok(source) = self.reader().text(rel).map(str::to_string) else {
            return Ok(None);
        };
        let Some(key) = key_at(spec, &source, line, col, word) else {
            return Ok(None);
        };
        let members = match &key.owner {
            Some(owner) => {
                let resolver = self.import_resolver()?;
                let graph = Graph::load(conn, &resolver, Loading::AsAsked)?;
                let at = KeyAt {
                    file_id,
                    source: &source,
                    line,
                };
                let members = self.key_members(&graph, spec, &at, word, owner, 0)?;
                if let Some(e) = graph.take_read_error() {
                    return Err(e);
                }
                members
            }
            None => Members::default(),
        };
        let reason = format!("the member `{word}` this key names");
        let confidence = if members.declared {
            "exact"
        } else {
            "inferred"
        };
        let (ids, sites) = (&members.ids, &members.sites);
        let mut out = self.member_evidence(ids, sites, word, &reason, confidence)?;
        if out.is_empty() && key.defines && !members.known {
            let snippet = self.reader().evidence(rel, line, line, Budget::DEFINITION);
            let mut ev = Evidence::new(rel, line, line, Kind::Property, word, snippet);
            ev.confidence = Some("exact".into());
            ev.reason = Some(format!(
                "this key defines the member `{word}` of its object"
            ));
            out.push(ev);
        }
        if out.is_empty() {
            return Ok(None);
        }
        if key.shorthand {
            let text = source.lines().nth(line as usize - 1).unwrap_or_default();
            out.extend(self.bare_name(file_id, rel, text, word, line, col)?);
        }
        Ok(Some(out))
    }

    /// The members the key `word` at `at` names, by its object's `owner`.
    fn key_members(
        &self,
        graph: &Graph<'_>,
        spec: &LanguageSpec,
        at: &KeyAt<'_>,
        word: &str,
        owner: &Owner,
        depth: u32,
    ) -> Result<Members> {
        let conn = self.connection();
        let scope = rows::scope_at(conn, at.file_id, at.line)?;
        let targets = |owner| graph.key_targets(at.file_id, scope, owner, word);
        Ok(match owner {
            Owner::Expression(expression) => {
                Members::from_targets(targets(KeyOwner::Expression(expression)), false)
            }
            Owner::Type(ty) => Members::from_targets(targets(KeyOwner::Type(ty)), true),
            Owner::Argument {
                callee,
                line,
                position,
            } => {
                let name = crate::lang::extract::last_identifier(callee);
                let mut members = Members {
                    declared: true,
                    ..Members::default()
                };
                let (mut called, mut typed) = (false, false);
                for call in rows::calls_on_line(conn, at.file_id, *line)? {
                    let (Some(function), true) = (call.target, call.callee_name == name) else {
                        continue;
                    };
                    let confidence = call.confidence.as_deref().unwrap_or("exact");
                    if confidence == "name_only" {
                        continue;
                    }
                    members.declared &= confidence == "exact";
                    let (ids, sites, known) = targets(KeyOwner::Parameter {
                        function,
                        position: *position,
                    });
                    members.ids.extend(ids);
                    members.sites.extend(sites);
                    (called, typed) = (true, typed || known);
                }
                // A call that resolves nowhere in the repository (outside,
                // or unknown) says nothing the key could define.
                members.known = !called || typed;
                members
            }
            Owner::Key { line, col } if depth < MAX_KEY_DEPTH => {
                let text = at
                    .source
                    .lines()
                    .nth(*line as usize - 1)
                    .unwrap_or_default();
                let outer_word = super::def::identifier_at(text, col.saturating_sub(1) as usize);
                let outer = outer_word.as_deref().and_then(|w| {
                    let key = key_at(spec, at.source, *line, *col, w)?;
                    Some((w.to_string(), key.owner?))
                });
                let Some((outer_word, outer)) = outer else {
                    return Ok(Members::default());
                };
                let outer_at = KeyAt { line: *line, ..*at };
                let outer =
                    self.key_members(graph, spec, &outer_at, &outer_word, &outer, depth + 1)?;
                let owner = KeyOwner::Members {
                    ids: &outer.ids,
                    sites: &outer.sites,
                };
                let (ids, sites, known) = targets(owner);
                // An enclosing key nothing types leaves this one untyped too;
                // one typed from outside leaves it unknowable.
                let outside = outer.known && outer.ids.is_empty() && outer.sites.is_empty();
                Members::from_targets((ids, sites, known || outside), outer.declared)
            }
            Owner::Key { .. } => Members::default(),
        })
    }

    /// Evidence for member definitions (`ids`) and attribute bindings
    /// (`sites`), each with `reason` and `confidence`.
    pub(super) fn member_evidence(
        &self,
        ids: &[i64],
        sites: &[BindingSite],
        attribute: &str,
        reason: &str,
        confidence: &str,
    ) -> Result<Vec<Evidence>> {
        let conn = self.connection();
        let mut out = self.definitions_by_id(ids)?;
        for ev in &mut out {
            ev.confidence = Some(confidence.into());
            ev.reason = Some(reason.into());
        }
        let mut reader = self.reader();
        for (file, scope, stored) in sites {
            if let Some((path, at)) = rows::binding_site(conn, *file, *scope, attribute, stored)? {
                let snippet = reader.evidence(&path, at, at, Budget::DEFINITION);
                let mut ev = Evidence::new(&path, at, at, Kind::Variable, attribute, snippet);
                ev.confidence = Some(confidence.into());
                ev.reason = Some(format!("{reason}, assigned here"));
                out.push(ev);
            }
        }
        Ok(out)
    }
}
