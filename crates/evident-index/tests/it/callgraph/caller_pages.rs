//! `callers` pages read file by file: each target in turn, then by path and
//! line, the order the contract gives; every page is that list's slice,
//! across files and targets.

use evident_index::Page;

use super::indexed_files;

/// Two functions named `hub`: one in `hub.c` (declared in `hub.h`), called
/// from `a/x.c` and `c.c`, and a static one in `b.c`, called there. Each call
/// is on line 3 of its three-line function, after the one-line head.
fn files() -> Vec<(&'static str, String)> {
    let calls = |n: usize| -> String {
        let mut body = String::from("#include \"hub.h\"\n");
        for i in 0..n {
            body += &format!("int use_{i}(void) {{\n  return hub();\n}}\n");
        }
        body
    };
    vec![
        ("hub.h", "int hub(void);\n".to_string()),
        (
            "hub.c",
            "#include \"hub.h\"\nint hub(void) {\n  return 1;\n}\n".to_string(),
        ),
        (
            "b.c",
            calls(3).replace("#include \"hub.h\"", "static int hub(void) { return 2; }"),
        ),
        ("a/x.c", calls(2)),
        ("c.c", calls(4)),
    ]
}

/// The contract's order, read from the edges table: the targets by their
/// file's path (as `graph_targets` lists them), then each target's sites by
/// path and line.
fn expected(root: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(root.join(".evident/index.db")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT f.path, g.line FROM edges g JOIN symbols s ON s.id = g.callee_id
             JOIN files t ON t.id = s.file_id JOIN files f ON f.id = g.file_id
             WHERE s.name = 'hub' ORDER BY t.path, s.start_line, f.path, g.line, g.call_id",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok(format!(
            "{}:{}",
            r.get::<_, String>(0)?,
            r.get::<_, u32>(1)?
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

#[test]
fn every_page_is_the_slice_of_the_whole_list() {
    let files = files();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (dir, index) = indexed_files(&files);
    let expected = expected(dir.path());
    assert!(expected.len() >= 9, "{expected:?}");
    let place = |e: &evident_index::Evidence| format!("{}:{}", e.path, e.start_line);
    let all = index.callers_page("hub", None, 1, Page::ALL).unwrap();
    assert_eq!(all.sites.iter().map(place).collect::<Vec<_>>(), expected);
    assert_eq!(all.total, expected.len());
    for offset in 0..=expected.len() + 1 {
        for limit in 1..=5 {
            let page = index
                .callers_page("hub", None, 1, Page { offset, limit })
                .unwrap();
            let slice = &expected[offset.min(expected.len())..(offset + limit).min(expected.len())];
            let listed: Vec<String> = page.sites.iter().map(place).collect();
            assert_eq!(listed, slice, "offset {offset}, limit {limit}");
            assert_eq!(page.total, expected.len());
        }
    }
}
