//! Each language's import rule on small layouts.

use std::path::Path;

use super::{DeclaredPackages, Resolver};
use crate::lang::by_name;
use crate::lang::LanguageSpec;

fn resolver(files: &[&str]) -> Resolver {
    Resolver::new(
        files.iter().copied(),
        Path::new("/nonexistent"),
        Default::default(),
    )
}

/// One import and where it must resolve: `(importer, module, imported name, expected path)`.
type Case<'a> = (&'a str, &'a str, Option<&'a str>, Option<&'a str>);

/// Resolves each case with `r` under `spec`, and names every one that differs.
fn check(r: &Resolver, spec: &LanguageSpec, cases: &[Case]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|&(importer, module, name, want)| {
            let got = r.resolve(spec, importer, module, name);
            (got.as_deref() != want)
                .then(|| format!("{importer}: {module} {name:?} -> {got:?}, want {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn python_absolute_relative_sibling_and_source_roots() {
    let r = resolver(&[
        "app/main.py",
        "app/helpers.py",
        "pkg/__init__.py",
        "pkg/mod.py",
        "pkg/sub/deep.py",
        "pkg/typing.py",
        "src/rag_common.py",
    ]);
    let py = by_name("python").unwrap();
    check(
        &r,
        py,
        &[
            ("app/main.py", "pkg.mod", None, Some("pkg/mod.py")),
            ("app/main.py", "pkg", Some("mod"), Some("pkg/mod.py")),
            ("app/main.py", "pkg", Some("thing"), Some("pkg/__init__.py")),
            ("app/main.py", "helpers", None, Some("app/helpers.py")),
            (
                "app/main.py",
                "rag_common",
                Some("f"),
                Some("src/rag_common.py"),
            ),
            ("pkg/sub/deep.py", "..mod", Some("x"), Some("pkg/mod.py")),
            ("pkg/sub/deep.py", "..", Some("mod"), Some("pkg/mod.py")),
            // No module `pkg/sub`: a name the package itself defines, as
            // `from pkg import thing` is.
            ("pkg/mod.py", ".", Some("sub"), Some("pkg/__init__.py")),
            ("app/main.py", ".", Some("x"), None),
            ("pkg/mod.py", "....x", None, None),
            ("app/main.py", "os.path", None, None),
            // In a package an absolute import never names a sibling (PEP
            // 328): `import typing` in `pkg/mod.py` is the standard one.
            ("pkg/mod.py", "typing", None, None),
            ("pkg/mod.py", "typing", Some("cast"), None),
            ("pkg/mod.py", ".typing", None, Some("pkg/typing.py")),
            ("pkg/mod.py", "pkg.typing", None, Some("pkg/typing.py")),
        ],
    );
}

#[test]
fn javascript_relative_with_extensions_and_index() {
    let r = resolver(&["web/a.ts", "web/util/index.ts", "web/b.js", "web/c.tsx"]);
    let ts = by_name("typescript").unwrap();
    check(
        &r,
        ts,
        &[
            ("web/a.ts", "./util", None, Some("web/util/index.ts")),
            ("web/a.ts", "./b", None, Some("web/b.js")),
            ("web/a.ts", "./c.js", None, Some("web/c.tsx")),
            ("web/util/index.ts", "../a", None, Some("web/a.ts")),
            ("web/a.ts", "react", None, None),
            ("web/a.ts", "../../../x", None, None),
        ],
    );
}

#[test]
fn javascript_tsconfig_paths_base_url_and_workspace_packages() {
    let root = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    // Comments and trailing commas, as tsc accepts them; `paths` relative
    // to `baseUrl`, which comes from the config this one extends.
    write(
        "app/tsconfig.base.json",
        r#"{ "compilerOptions": { "baseUrl": "./src", } }"#,
    );
    write(
        "app/tsconfig.json",
        r#"{
          // the app's aliases
          "extends": "./tsconfig.base",
          "compilerOptions": { "paths": { "@lib/*": ["lib/*"], "@lib/special": ["other/special"], "config": ["conf/main"] } },
        }"#,
    );
    write(
        "packages/ui/package.json",
        r#"{"name": "@acme/ui", "main": "./dist/index.js", "types": "./src/main.ts"}"#,
    );
    write(
        "packages/util/package.json",
        r#"{"name": "util-pkg", "exports": {".": {"import": "./lib/entry.js"}}}"#,
    );
    write(
        "node_modules/left-pad/package.json",
        r#"{"name": "left-pad"}"#,
    );
    let files = [
        "app/src/main.ts",
        "app/src/lib/math.ts",
        "app/src/other/special.ts",
        "app/src/conf/main.ts",
        "app/src/plain/thing.ts",
        "packages/ui/src/main.ts",
        "packages/ui/src/button.tsx",
        "packages/util/lib/entry.ts",
        "packages/util/lib/index.ts",
        "node_modules/left-pad/index.js",
    ];
    let r = Resolver::new(files.iter().copied(), root.path(), Default::default());
    let ts = by_name("typescript").unwrap();
    check(
        &r,
        ts,
        &[
            (
                "app/src/main.ts",
                "@lib/math",
                None,
                Some("app/src/lib/math.ts"),
            ),
            // The longer prefix wins over the wildcard.
            (
                "app/src/main.ts",
                "@lib/special",
                None,
                Some("app/src/other/special.ts"),
            ),
            (
                "app/src/main.ts",
                "config",
                None,
                Some("app/src/conf/main.ts"),
            ),
            // `baseUrl` alone makes `plain/thing` a repository path.
            (
                "app/src/main.ts",
                "plain/thing",
                None,
                Some("app/src/plain/thing.ts"),
            ),
            // The config applies below its directory only.
            ("packages/ui/src/main.ts", "@lib/math", None, None),
            // Workspace packages by name: the declared entry, subpaths under the package or its src/.
            (
                "app/src/main.ts",
                "@acme/ui",
                None,
                Some("packages/ui/src/main.ts"),
            ),
            (
                "app/src/main.ts",
                "@acme/ui/button",
                None,
                Some("packages/ui/src/button.tsx"),
            ),
            (
                "app/src/main.ts",
                "util-pkg",
                None,
                Some("packages/util/lib/entry.ts"),
            ),
            // A name that merely starts like a package's is another package.
            ("app/src/main.ts", "@acme/uikit", None, None),
            // node_modules is never a workspace.
            ("app/src/main.ts", "left-pad", None, None),
            ("app/src/main.ts", "react", None, None),
        ],
    );
    let before = r.layout_signature();
    write("packages/ui/package.json", r#"{"name": "@acme/widgets"}"#);
    assert_ne!(
        Resolver::new(files.iter().copied(), root.path(), Default::default()).layout_signature(),
        before
    );
}

#[test]
fn rust_crate_self_super_and_mod_declarations() {
    let r = resolver(&[
        "src/lib.rs",
        "src/store.rs",
        "src/store/query.rs",
        "src/a/mod.rs",
        "src/a/b.rs",
    ]);
    let rs = by_name("rust").unwrap();
    check(
        &r,
        rs,
        &[
            (
                "src/a/b.rs",
                "crate::store",
                Some("Db"),
                Some("src/store.rs"),
            ),
            (
                "src/a/b.rs",
                "crate::store::query",
                Some("*"),
                Some("src/store/query.rs"),
            ),
            ("src/a/b.rs", "super", Some("X"), Some("src/a/mod.rs")),
            (
                "src/a/b.rs",
                "super::super::store",
                Some("Db"),
                Some("src/store.rs"),
            ),
            ("src/a/mod.rs", "self", Some("b"), Some("src/a/b.rs")),
            ("src/lib.rs", "self", Some("store"), Some("src/store.rs")),
            (
                "src/store.rs",
                "self",
                Some("query"),
                Some("src/store/query.rs"),
            ),
            ("src/a/b.rs", "crate", Some("Thing"), Some("src/lib.rs")),
            ("src/a/b.rs", "std::collections", Some("HashMap"), None),
        ],
    );
    // Integration tests: each file in tests/ is a crate root; `mod common;` is tests/common/mod.rs.
    let t = resolver(&["tests/indexing.rs", "tests/common/mod.rs"]);
    check(
        &t,
        rs,
        &[(
            "tests/indexing.rs",
            "self",
            Some("common"),
            Some("tests/common/mod.rs"),
        )],
    );
    // Edition 2018: a child module without `self::`; other crates stay unresolved.
    check(
        &r,
        rs,
        &[
            ("src/lib.rs", "store", Some("Db"), Some("src/store.rs")),
            ("src/a/mod.rs", "b", Some("X"), Some("src/a/b.rs")),
            ("src/lib.rs", "serde", Some("Serialize"), None),
        ],
    );
}

#[test]
fn java_classes_and_packages() {
    let r = resolver(&[
        "src/main/java/com/x/A.java",
        "src/main/java/com/x/util/B.java",
    ]);
    let java = by_name("java").unwrap();
    check(
        &r,
        java,
        &[
            (
                "src/main/java/com/x/A.java",
                "com.x.util",
                Some("B"),
                Some("src/main/java/com/x/util/B.java"),
            ),
            (
                "src/main/java/com/x/util/B.java",
                "com.x.A",
                Some("run"),
                Some("src/main/java/com/x/A.java"),
            ),
            (
                "src/main/java/com/x/A.java",
                "com.x.util",
                Some("*"),
                Some("src/main/java/com/x/util"),
            ),
            (
                "src/main/java/com/x/A.java",
                "java.util",
                Some("List"),
                None,
            ),
        ],
    );
}

#[test]
fn c_includes_beside_then_include_dirs_and_system_headers() {
    let r = resolver(&[
        "src/main.c",
        "src/local.h",
        "include/util.h",
        "lib/include/net/sock.h",
    ]);
    let c = by_name("c").unwrap();
    check(
        &r,
        c,
        &[
            ("src/main.c", "local.h", Some("*"), Some("src/local.h")),
            ("src/main.c", "util.h", Some("*"), Some("include/util.h")),
            (
                "src/main.c",
                "net/sock.h",
                Some("*"),
                Some("lib/include/net/sock.h"),
            ),
            // `<...>` is searched in the include directories only, then outside.
            ("src/main.c", "<util.h>", Some("*"), Some("include/util.h")),
            ("src/main.c", "<local.h>", Some("*"), None),
            ("src/main.c", "<stdio.h>", Some("*"), None),
            ("src/main.c", "../../etc/passwd", Some("*"), None),
        ],
    );
}

#[test]
fn compile_commands_name_the_include_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("third/api")).unwrap();
    std::fs::write(
        root.join("compile_commands.json"),
        format!(
            r#"[{{"directory": "{}", "command": "cc -Ithird/api -I /usr/include -c src/a.c", "file": "src/a.c"}}]"#,
            root.display()
        ),
    )
    .unwrap();
    let r = Resolver::new(
        ["src/a.c", "third/api/api.h", "include/api.h"],
        root,
        Default::default(),
    );
    let c = by_name("c").unwrap();
    // Only the database's directories: `include/` is not guessed then.
    check(
        &r,
        c,
        &[("src/a.c", "api.h", Some("*"), Some("third/api/api.h"))],
    );
}

#[test]
fn scripts_ruby_bash_lua_and_swift_modules() {
    let r = resolver(&[
        "lib/shop/pricing.rb",
        "bin/checkout.rb",
        "scripts/deploy.sh",
        "scripts/lib/log.sh",
        "acme/util.lua",
        "acme/init.lua",
        "share/lua/5.4/pl/utils.lua",
        "main.lua",
        "Sources/Geometry/Circle.swift",
        "Sources/App/main.swift",
    ]);
    let ruby = by_name("ruby").unwrap();
    check(
        &r,
        ruby,
        &[
            (
                "bin/checkout.rb",
                "shop/pricing",
                Some("*"),
                Some("lib/shop/pricing.rb"),
            ),
            (
                "bin/checkout.rb",
                "./../lib/shop/pricing",
                Some("*"),
                Some("lib/shop/pricing.rb"),
            ),
            ("bin/checkout.rb", "json", Some("*"), None),
        ],
    );
    let bash = by_name("bash").unwrap();
    check(
        &r,
        bash,
        &[
            (
                "scripts/deploy.sh",
                "./lib/log.sh",
                Some("*"),
                Some("scripts/lib/log.sh"),
            ),
            (
                "scripts/deploy.sh",
                "lib/log.sh",
                Some("*"),
                Some("scripts/lib/log.sh"),
            ),
        ],
    );
    let lua = by_name("lua").unwrap();
    check(
        &r,
        lua,
        &[
            ("main.lua", "acme.util", None, Some("acme/util.lua")),
            ("main.lua", "acme", None, Some("acme/init.lua")),
            (
                "main.lua",
                "pl.utils",
                None,
                Some("share/lua/5.4/pl/utils.lua"),
            ),
        ],
    );
    let swift = by_name("swift").unwrap();
    check(
        &r,
        swift,
        &[
            (
                "Sources/App/main.swift",
                "Geometry",
                Some("*"),
                Some("Sources/Geometry"),
            ),
            ("Sources/App/main.swift", "Foundation", Some("*"), None),
        ],
    );
}

#[test]
fn csharp_php_and_kotlin() {
    let r = resolver(&[
        "src/Acme.Util/Strings.cs",
        "src/Acme.App/Worker.cs",
        "app/Http/Controllers/Home.php",
        "app/helpers.php",
        "java/com/acme/util/Legacy.java",
        "kt/com/acme/util/Strings.kt",
    ]);
    let cs = by_name("csharp").unwrap();
    check(
        &r,
        cs,
        &[
            (
                "src/Acme.App/Worker.cs",
                "Acme.Util",
                Some("*"),
                Some("src/Acme.Util"),
            ),
            (
                "src/Acme.App/Worker.cs",
                "Acme.Util",
                Some("Strings"),
                Some("src/Acme.Util/Strings.cs"),
            ),
            ("src/Acme.App/Worker.cs", "System", Some("*"), None),
        ],
    );
    let php = by_name("php").unwrap();
    // Without a composer.json: by path suffix.
    check(
        &r,
        php,
        &[
            (
                "app/helpers.php",
                "App\\Http\\Controllers",
                Some("Home"),
                Some("app/Http/Controllers/Home.php"),
            ),
            (
                "app/Http/Controllers/Home.php",
                ".//../../helpers.php",
                Some("*"),
                Some("app/helpers.php"),
            ),
        ],
    );
    // A Kotlin package directory before a Java one of the same name.
    let kotlin = by_name("kotlin").unwrap();
    check(
        &r,
        kotlin,
        &[(
            "kt/com/acme/App.kt",
            "com.acme.util",
            Some("trim"),
            Some("kt/com/acme/util"),
        )],
    );
}

/// Files whose directories do not spell their packages: found by the
/// package each declares, as the compilers find them.
#[test]
fn kotlin_scala_and_csharp_by_declared_package() {
    let files = [
        ("src/main/kotlin/util/Strings.kt", "kotlin", "com.acme.util"),
        ("src/main/kotlin/util/Numbers.kt", "kotlin", "com.acme.util"),
        ("src/main/kotlin/App.kt", "kotlin", "com.acme"),
        ("src/main/scala/Shapes.scala", "scala", "org.geo.shapes"),
        ("src/Acme.Core/Models/User.cs", "csharp", "Acme.Core.Models"),
        ("src/Acme.Core/Models/Role.cs", "csharp", "Acme.Core.Models"),
        ("src/Acme.Web/Home.cs", "csharp", "Acme.Web"),
    ];
    let declared = DeclaredPackages::from_rows(files.iter().copied());
    let r = Resolver::new(
        files.iter().map(|f| f.0),
        Path::new("/nonexistent"),
        declared,
    );
    let kotlin = by_name("kotlin").unwrap();
    let app = "src/main/kotlin/App.kt";
    check(
        &r,
        kotlin,
        &[
            // A class in the file named after it.
            (
                app,
                "com.acme.util",
                Some("Strings"),
                Some("src/main/kotlin/util/Strings.kt"),
            ),
            // A top-level function, a nested class: the package, the outer class.
            (
                app,
                "com.acme.util",
                Some("clamp"),
                Some("src/main/kotlin/util"),
            ),
            (
                app,
                "com.acme.util.Numbers",
                Some("Parser"),
                Some("src/main/kotlin/util/Numbers.kt"),
            ),
            (
                app,
                "com.acme.util",
                Some("*"),
                Some("src/main/kotlin/util"),
            ),
            (app, "com.other", Some("Thing"), None),
        ],
    );
    let scala = by_name("scala").unwrap();
    check(
        &r,
        scala,
        &[(
            app,
            "org.geo.shapes",
            Some("Circle"),
            Some("src/main/scala/Shapes.scala"),
        )],
    );
    let cs = by_name("csharp").unwrap();
    let home = "src/Acme.Web/Home.cs";
    check(
        &r,
        cs,
        &[
            (
                home,
                "Acme.Core.Models",
                Some("*"),
                Some("src/Acme.Core/Models"),
            ),
            (
                home,
                "Acme.Core.Models",
                Some("User"),
                Some("src/Acme.Core/Models/User.cs"),
            ),
            (home, "Acme.Core", Some("*"), None),
        ],
    );
    // Java's class is its file: no package stands in for a missing one.
    let java = by_name("java").unwrap();
    check(&r, java, &[(app, "com.acme.util", Some("Missing"), None)]);
}
