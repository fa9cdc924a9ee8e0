//! Every lookup of a definition by name, and of an import by module,
//! searches an index: SQLite's own
//! query plan says so, on an empty index (with no statistics the planner
//! decides as it would for any size). A plan that reads every definition
//! costs a third of a second per command on the Linux kernel, and nothing
//! on a test fixture, so only the plan can catch it.

use rusqlite::Connection;

use super::graph::{targets_sql, TargetMatch};
use super::reads::{symbol_matches_sql, SymbolFilter, IMPORT_BINDINGS};
use super::schema::{ensure_secondary_indexes, SCHEMA};

/// The plan's steps, as `EXPLAIN QUERY PLAN` words them.
fn plan(conn: &Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let values: Vec<String> = (0..stmt.parameter_count()).map(|_| "x".into()).collect();
    stmt.query_map(rusqlite::params_from_iter(values.iter()), |r| r.get(3))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn reads_every_definition(steps: &[String]) -> bool {
    steps
        .iter()
        .any(|s| s.starts_with("SCAN s") || s.starts_with("SCAN symbols"))
}

#[test]
fn every_lookup_by_name_searches_an_index() {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    ensure_secondary_indexes(&conn).unwrap();
    let mut statements = Vec::new();
    for how in [TargetMatch::NameOrQualified, TargetMatch::QualifiedSuffix] {
        for with_path in [false, true] {
            statements.push(targets_sql(how, with_path));
        }
    }
    for exact in [true, false] {
        for (kind, path) in [(None, None), (Some("function"), Some("src"))] {
            let filter = SymbolFilter {
                name: "Store.open",
                exact,
                kind,
                path,
                limit: 50,
            };
            statements.push(symbol_matches_sql(&filter).0);
        }
    }
    for sql in &statements {
        let steps = plan(&conn, sql);
        assert!(!reads_every_definition(&steps), "{steps:?}\n{sql}");
    }
    // The check itself: the single `OR` these replaced reads every definition.
    let or = "SELECT s.id FROM symbols s WHERE (s.name = ?1 COLLATE NOCASE AND s.name = ?1) \
              OR s.qualified_name = ?1";
    assert!(reads_every_definition(&plan(&conn, or)));
}

#[test]
fn importers_search_the_imports_indexes() {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    ensure_secondary_indexes(&conn).unwrap();
    let steps = plan(&conn, IMPORT_BINDINGS);
    assert!(
        !steps
            .iter()
            .any(|s| s.starts_with("SCAN i") || s.starts_with("SCAN imports")),
        "{steps:?}"
    );
}
