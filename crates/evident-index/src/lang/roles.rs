//! What kind of file a path is: the code a project runs, or its tests, its
//! documentation, its examples, its change log, its benchmarks, code it
//! generated or vendored. Search ranks source first for a report about
//! behaviour ([`crate::search`]); the rules are data: the directory and file
//! names every project shares are the tables below, and what one language
//! calls a test file is its row's `test_files` ([`super::LanguageSpec`]).

use globset::{GlobSet, GlobSetBuilder};
use std::sync::LazyLock;

/// A file's role in its project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    Source,
    /// Tests and what only tests use: helpers, fixtures, test data.
    Test,
    /// Documents and documentation code (`docs/conf.py`).
    Documentation,
    /// Code a project shows rather than runs.
    Example,
    /// The project's history: change logs, release notes. They name every
    /// past change, so they match any report's words.
    Changelog,
    Benchmark,
    /// Generated or vendored code: not the project's to change.
    Generated,
    /// Type stubs and declaration files: an interface whose code lives
    /// elsewhere. They restate names and doc comments, so they match the
    /// words that describe the code.
    Interface,
}

impl FileRole {
    pub fn as_str(self) -> &'static str {
        match self {
            FileRole::Source => "source",
            FileRole::Test => "a test file",
            FileRole::Documentation => "documentation",
            FileRole::Example => "an example",
            FileRole::Changelog => "a change log",
            FileRole::Benchmark => "a benchmark",
            FileRole::Generated => "generated or vendored code",
            FileRole::Interface => "a type declaration file",
        }
    }
}

/// Directories whose files take a role, whatever the language.
const DIRECTORIES: &[(&str, FileRole)] = &[
    ("test", FileRole::Test),
    ("tests", FileRole::Test),
    ("__tests__", FileRole::Test),
    ("spec", FileRole::Test),
    ("specs", FileRole::Test),
    ("testing", FileRole::Test),
    ("test_support", FileRole::Test),
    ("testsupport", FileRole::Test),
    ("testutil", FileRole::Test),
    ("testutils", FileRole::Test),
    ("testdata", FileRole::Test),
    ("test-data", FileRole::Test),
    ("fixtures", FileRole::Test),
    ("__fixtures__", FileRole::Test),
    ("__mocks__", FileRole::Test),
    ("testsuite", FileRole::Test),
    ("docs", FileRole::Documentation),
    ("doc", FileRole::Documentation),
    ("documentation", FileRole::Documentation),
    ("examples", FileRole::Example),
    ("example", FileRole::Example),
    ("samples", FileRole::Example),
    ("demo", FileRole::Example),
    ("benches", FileRole::Benchmark),
    ("benchmarks", FileRole::Benchmark),
    ("benchmark", FileRole::Benchmark),
    ("vendor", FileRole::Generated),
    ("vendored", FileRole::Generated),
    ("_vendor", FileRole::Generated),
    ("third_party", FileRole::Generated),
    ("third-party", FileRole::Generated),
    ("node_modules", FileRole::Generated),
];

/// File names (globs, case-insensitive) that take a role in any language.
const FILES: &[(&str, FileRole)] = &[
    (
        "{changelog,changes,history,news,releases,release-notes,release_notes}",
        FileRole::Changelog,
    ),
    (
        "{changelog,changes,history,news,releases,release-notes,release_notes}.*",
        FileRole::Changelog,
    ),
    ("conftest.py", FileRole::Test),
    ("*.min.js", FileRole::Generated),
    ("*.min.css", FileRole::Generated),
    ("*_pb2.py", FileRole::Generated),
    ("*_pb2_grpc.py", FileRole::Generated),
    ("*.pb.go", FileRole::Generated),
    ("*.pb.rs", FileRole::Generated),
    ("zz_generated*", FileRole::Generated),
    ("*.generated.*", FileRole::Generated),
    ("*_generated.*", FileRole::Generated),
    ("*.g.dart", FileRole::Generated),
    ("{test_*,*_test,*_tests}.*", FileRole::Test),
    ("*.{test,spec}.*", FileRole::Test),
];

struct Compiled {
    files: GlobSet,
    file_roles: Vec<FileRole>,
    /// Each language's `test_files`, by its index in [`super::LANGUAGES`].
    tests: Vec<GlobSet>,
    /// Each language's `interface_files`, likewise.
    interfaces: Vec<GlobSet>,
}

/// The shared names are matched without case (`CHANGES.rst`, `History.md`);
/// a language's own with it (`*Test.java` is not `latest.java`).
fn glob_set<'a>(patterns: impl Iterator<Item = &'a str>, any_case: bool) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = globset::GlobBuilder::new(pattern)
            .case_insensitive(any_case)
            .build()
            .unwrap_or_else(|e| panic!("the role pattern {pattern:?} is a valid glob: {e}"));
        builder.add(glob);
    }
    builder.build().expect("role patterns compile")
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    files: glob_set(FILES.iter().map(|(p, _)| *p), true),
    file_roles: FILES.iter().map(|(_, r)| *r).collect(),
    tests: super::LANGUAGES
        .iter()
        .map(|l| glob_set(l.test_files.iter().copied(), false))
        .collect(),
    interfaces: super::LANGUAGES
        .iter()
        .map(|l| glob_set(l.interface_files.iter().copied(), false))
        .collect(),
});

/// The role of a repository path (`/`-separated). A directory's role holds
/// for everything under it, the nearest directory first (`docs/examples/`
/// is an example); then the file's name; else source.
pub fn role_of(path: &str) -> FileRole {
    let mut segments = path.rsplit('/');
    let file = segments.next().unwrap_or(path);
    for dir in segments {
        let dir = dir.to_ascii_lowercase();
        if let Some((_, role)) = DIRECTORIES.iter().find(|(d, _)| *d == dir) {
            return *role;
        }
    }
    let compiled = &*COMPILED;
    let language = super::for_path(path);
    // A change log is a document: `history.rs` is code.
    let by_name = compiled
        .files
        .matches(file)
        .into_iter()
        .map(|i| compiled.file_roles[i])
        .find(|role| *role != FileRole::Changelog || language.is_none());
    if let Some(role) = by_name {
        return role;
    }
    if let Some(spec) = language {
        let index = super::LANGUAGES
            .iter()
            .position(|l| l.name == spec.name)
            .expect("spec comes from LANGUAGES");
        if compiled.tests[index].is_match(file) {
            return FileRole::Test;
        }
        if compiled.interfaces[index].is_match(file) {
            return FileRole::Interface;
        }
    }
    if super::docs::for_path(path).is_some() {
        return FileRole::Documentation;
    }
    FileRole::Source
}

/// A query of this many distinct words or fewer that holds one word naming
/// a kind of file asks for that kind whole.
const INTENT_WORDS: f64 = 8.0;

/// How much a query asks for a role's files themselves, 0 to 1. In a short
/// query a word that names the kind is its intent ("fix the flaky test"); in
/// a report it is one word among many ("a minimal example", "the tests
/// pass", "see the docs") and the report is still about behaviour, so each
/// such word asks for `INTENT_WORDS` over the query's count of words.
pub fn asked_share(role: FileRole, words: &[String]) -> f64 {
    let asking = asking_words(role);
    let said = words
        .iter()
        .filter(|w| asking.contains(&w.as_str()))
        .count();
    (said as f64 * INTENT_WORDS / words.len().max(1) as f64).min(1.0)
}

/// The words that name a role's kind of file.
fn asking_words(role: FileRole) -> &'static [&'static str] {
    match role {
        FileRole::Test => &[
            "test", "tests", "testing", "pytest", "unittest", "spec", "fixture", "fixtures",
        ],
        // Not "docstring": a docstring is the code's own text.
        FileRole::Documentation => &[
            "doc",
            "docs",
            "documentation",
            "document",
            "documented",
            "readme",
            "guide",
            "tutorial",
        ],
        FileRole::Example => &["example", "examples", "sample", "demo"],
        FileRole::Changelog => &["changelog", "changes", "history", "release", "news"],
        FileRole::Benchmark => &["bench", "benchmark", "benchmarks", "benches"],
        FileRole::Interface => &[
            "stub",
            "stubs",
            "typings",
            "pyi",
            "declaration",
            "declarations",
        ],
        FileRole::Source | FileRole::Generated => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_by_directory_name_and_language() {
        let cases = [
            ("src/click/core.py", FileRole::Source),
            ("src/click/testing.py", FileRole::Source),
            ("src/contest.py", FileRole::Source),
            ("latest/app.py", FileRole::Source),
            ("tests/test_core.py", FileRole::Test),
            ("lib/test_utils.py", FileRole::Test),
            ("conftest.py", FileRole::Test),
            ("pkg/testing/helpers.py", FileRole::Test),
            ("src/test_support/mod.rs", FileRole::Test),
            ("crates/core/flags_tests.rs", FileRole::Test),
            ("src/__tests__/a.js", FileRole::Test),
            ("web/app.spec.ts", FileRole::Test),
            ("pkg/store_test.go", FileRole::Test),
            ("src/test/java/AppTest.java", FileRole::Test),
            ("app/src/main/java/StoreTest.java", FileRole::Test),
            ("lib/router_spec.rb", FileRole::Test),
            ("tests/fixtures/data.json", FileRole::Test),
            ("docs/conf.py", FileRole::Documentation),
            ("docs/api.rst", FileRole::Documentation),
            ("README.md", FileRole::Documentation),
            ("History.md", FileRole::Changelog),
            ("CHANGES.rst", FileRole::Changelog),
            ("CHANGELOG", FileRole::Changelog),
            ("examples/repo/repo.py", FileRole::Example),
            ("docs/examples/a.py", FileRole::Example),
            ("benches/search.rs", FileRole::Benchmark),
            ("vendor/github.com/x/y.go", FileRole::Generated),
            ("api/v1/types.pb.go", FileRole::Generated),
            ("static/app.min.js", FileRole::Generated),
            ("src/docs.py", FileRole::Source),
            ("src/example.py", FileRole::Source),
            ("lib/documents/x.py", FileRole::Source),
            ("src/history.rs", FileRole::Source),
            ("django/contrib/auth/tests.py", FileRole::Test),
            ("src/latest.java", FileRole::Source),
            ("typings/index.d.ts", FileRole::Interface),
            ("src/types.d.mts", FileRole::Interface),
            ("src/index.ts", FileRole::Source),
            ("stubs/requests/api.pyi", FileRole::Interface),
            ("src/api.py", FileRole::Source),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(path, role)| role_of(path) != *role)
            .map(|(path, role)| format!("{path}: {:?}, want {role:?}", role_of(path)))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn queries_ask_for_roles_by_their_words() {
        let share = |role, t: &str| asked_share(role, &crate::search::query_terms(t));
        assert_eq!(share(FileRole::Test, "fix the flaky test"), 1.0);
        assert_eq!(share(FileRole::Test, "fix the option parser"), 0.0);
        assert_eq!(share(FileRole::Documentation, "update the docs"), 1.0);
        assert_eq!(
            share(FileRole::Documentation, "fix a typo in a docstring"),
            0.0
        );
        assert_eq!(share(FileRole::Source, "anything at all"), 0.0);
        // In a report, one word naming a kind asks in proportion.
        let report = "Parsing a quoted option value drops the escaped quote character \
            and the command receives a truncated string argument instead; here is a \
            minimal example that shows the parser splitting on the inner quote";
        let asked = share(FileRole::Example, report);
        assert!(asked > 0.0 && asked < 0.5, "{asked}");
    }
}
