//! Kotlin, Scala and C# files whose directories do not spell the package
//! or namespace they declare: the compilers find them by that declaration
//! (Kotlin's own layout leaves out the common root package; a C# namespace
//! may span directories), and so must imports, importers, `def` and calls.

use std::path::Path;

use evident_index::{index_repo, Index, IndexOptions};

use super::{assert_edges, definitions, edges};
use crate::common;

const FILES: &[(&str, &str)] = &[
    (
        "kt/src/main/kotlin/util/Strings.kt",
        "package com.acme.util\n\nclass Strings {\n    fun pad(s: String): String = s\n}\n",
    ),
    (
        "kt/src/main/kotlin/util/Numbers.kt",
        "package com.acme.util\n\nfun clamp(n: Int): Int = n\n",
    ),
    (
        "kt/src/main/kotlin/App.kt",
        "package com.acme\n\nimport com.acme.util.Strings\nimport com.acme.util.clamp\n\nfun main() {\n    val s = Strings()\n    clamp(3)\n    peer()\n}\n",
    ),
    // The same package in another directory: its names need no import.
    (
        "kt/src/extra/Peer.kt",
        "package com.acme\n\nfun peer(): Int = 1\n",
    ),
    (
        "sc/src/main/scala/Shapes.scala",
        "package org.geo.shapes\n\nobject Circle {\n  def area(r: Double): Double = r * r\n}\n",
    ),
    (
        "sc/src/main/scala/Main.scala",
        "package org.geo.app\n\nimport org.geo.shapes.Circle\n\nobject Main {\n  def run(): Double = Circle.area(2.0)\n}\n",
    ),
    (
        "cs/src/Acme.Core/Models/User.cs",
        "namespace Acme.Core.Models\n{\n    public class User\n    {\n    }\n}\n",
    ),
    // One namespace over two directories.
    (
        "cs/src/Acme.Core/Extra/Role.cs",
        "namespace Acme.Core.Models\n{\n    public class Role\n    {\n    }\n}\n",
    ),
    (
        "cs/src/Acme.Web/Home.cs",
        "using Acme.Core.Models;\n\nnamespace Acme.Web\n{\n    public class Home\n    {\n        public void Show()\n        {\n            var u = new User();\n            var r = new Role();\n        }\n    }\n}\n",
    ),
];

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    evident_testkit::fs::write_all(dir.path(), FILES);
    index_repo(dir.path(), &IndexOptions::default()).unwrap();
    dir
}

fn importers(root: &Path, path: &str) -> Vec<String> {
    let found = Index::open(root).unwrap().importers(path).unwrap();
    found
        .iter()
        .map(|e| format!("{}:{}", e.path, e.start_line))
        .collect()
}

fn definitions_at(root: &Path, path: &str, line: u32, col: u32) -> Vec<String> {
    definitions(root, path, line, col)
        .iter()
        .map(|e| format!("{}:{} {}", e.path, e.start_line, e.name))
        .collect()
}

#[test]
fn imports_importers_def_and_calls_follow_the_declared_package() {
    let dir = project();
    let root = dir.path();
    assert_eq!(
        importers(root, "kt/src/main/kotlin/util/Strings.kt"),
        ["kt/src/main/kotlin/App.kt:3"]
    );
    assert_eq!(
        importers(root, "sc/src/main/scala/Shapes.scala"),
        ["sc/src/main/scala/Main.scala:3"]
    );
    // `using` brings in the whole namespace: each of its files is imported.
    for namespace_file in [
        "cs/src/Acme.Core/Models/User.cs",
        "cs/src/Acme.Core/Extra/Role.cs",
    ] {
        assert_eq!(
            importers(root, namespace_file),
            ["cs/src/Acme.Web/Home.cs:1"],
            "{namespace_file}"
        );
    }
    // `def` on the imported name, in the import line.
    let strings = definitions_at(root, "kt/src/main/kotlin/App.kt", 3, 23);
    assert_eq!(strings, ["kt/src/main/kotlin/util/Strings.kt:3 Strings"]);
    assert_edges(
        &edges(root),
        &[
            "kt/src/main/kotlin/App.kt:7 Strings -> com.acme.util.Strings (exact)",
            "kt/src/main/kotlin/App.kt:8 clamp -> com.acme.util.clamp (exact)",
            "kt/src/main/kotlin/App.kt:9 peer -> com.acme.peer (exact)",
            "sc/src/main/scala/Main.scala:6 Circle.area -> org.geo.shapes.Circle.area (exact)",
            "cs/src/Acme.Web/Home.cs:9 User -> Acme.Core.Models.User (exact)",
            "cs/src/Acme.Web/Home.cs:10 Role -> Acme.Core.Models.Role (exact)",
        ],
    );
}

#[test]
fn a_changed_package_line_moves_imports_and_calls_as_a_rebuild_would() {
    let dir = project();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        evident_testkit::fs::write_all(root, &[(path, text)]);
        index_repo(root, &IndexOptions::default()).unwrap();
    };
    // `clamp` leaves the package App imports it from; `peer` leaves App's.
    write(
        "kt/src/main/kotlin/util/Numbers.kt",
        "package com.acme.numbers\n\nfun clamp(n: Int): Int = n\n",
    );
    write(
        "kt/src/extra/Peer.kt",
        "package com.elsewhere\n\nfun peer(): Int = 1\n",
    );
    let now = edges(root);
    for gone in [
        "App.kt:8 clamp -> com.acme.util.clamp",
        "App.kt:9 peer -> com.acme.peer",
    ] {
        assert!(
            !now.iter().any(|e| e.contains(gone)),
            "{gone} stays:\n{now:#?}"
        );
    }
    common::assert_equals_rebuild(root, "packages declared elsewhere");
    // A new file of the package, in a directory of its own: found again.
    write(
        "kt/src/later/Back.kt",
        "package com.acme\n\nfun peer(): Int = 2\n",
    );
    assert_edges(
        &edges(root),
        &["kt/src/main/kotlin/App.kt:9 peer -> com.acme.peer (exact)"],
    );
    common::assert_equals_rebuild(root, "a file added to a package");
}
