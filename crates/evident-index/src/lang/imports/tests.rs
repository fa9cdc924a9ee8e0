//! Each language's import rule on small layouts.

use std::path::Path;

use super::Resolver;
use crate::lang::by_name;

fn resolver(files: &[&str]) -> Resolver {
    Resolver::new(files.iter().copied(), Path::new("/nonexistent"))
}

#[test]
fn python_absolute_relative_sibling_and_source_roots() {
    let r = resolver(&[
        "app/main.py",
        "app/helpers.py",
        "pkg/__init__.py",
        "pkg/mod.py",
        "pkg/sub/deep.py",
        "src/rag_common.py",
    ]);
    let py = by_name("python").unwrap();
    assert_eq!(
        r.resolve(py, "app/main.py", "pkg.mod", None).as_deref(),
        Some("pkg/mod.py")
    );
    assert_eq!(
        r.resolve(py, "app/main.py", "pkg", Some("mod")).as_deref(),
        Some("pkg/mod.py")
    );
    assert_eq!(
        r.resolve(py, "app/main.py", "pkg", Some("thing"))
            .as_deref(),
        Some("pkg/__init__.py")
    );
    assert_eq!(
        r.resolve(py, "app/main.py", "helpers", None).as_deref(),
        Some("app/helpers.py")
    );
    assert_eq!(
        r.resolve(py, "app/main.py", "rag_common", Some("f"))
            .as_deref(),
        Some("src/rag_common.py")
    );
    assert_eq!(
        r.resolve(py, "pkg/sub/deep.py", "..mod", Some("x"))
            .as_deref(),
        Some("pkg/mod.py")
    );
    assert_eq!(
        r.resolve(py, "pkg/sub/deep.py", "..", Some("mod"))
            .as_deref(),
        Some("pkg/mod.py")
    );
    assert_eq!(r.resolve(py, "pkg/mod.py", ".", Some("sub")), None);
    assert_eq!(r.resolve(py, "pkg/mod.py", "....x", None), None);
    assert_eq!(r.resolve(py, "app/main.py", "os.path", None), None);
}

#[test]
fn javascript_relative_with_extensions_and_index() {
    let r = resolver(&["web/a.ts", "web/util/index.ts", "web/b.js", "web/c.tsx"]);
    let ts = by_name("typescript").unwrap();
    assert_eq!(
        r.resolve(ts, "web/a.ts", "./util", None).as_deref(),
        Some("web/util/index.ts")
    );
    assert_eq!(
        r.resolve(ts, "web/a.ts", "./b", None).as_deref(),
        Some("web/b.js")
    );
    assert_eq!(
        r.resolve(ts, "web/a.ts", "./c.js", None).as_deref(),
        Some("web/c.tsx")
    );
    assert_eq!(
        r.resolve(ts, "web/util/index.ts", "../a", None).as_deref(),
        Some("web/a.ts")
    );
    assert_eq!(r.resolve(ts, "web/a.ts", "react", None), None);
    assert_eq!(r.resolve(ts, "web/a.ts", "../../../x", None), None);
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
    let r = Resolver::new(files.iter().copied(), root.path());
    let ts = by_name("typescript").unwrap();
    let at = |importer: &str, module: &str| r.resolve(ts, importer, module, None);
    assert_eq!(
        at("app/src/main.ts", "@lib/math").as_deref(),
        Some("app/src/lib/math.ts")
    );
    // The longer prefix wins over the wildcard.
    assert_eq!(
        at("app/src/main.ts", "@lib/special").as_deref(),
        Some("app/src/other/special.ts")
    );
    assert_eq!(
        at("app/src/main.ts", "config").as_deref(),
        Some("app/src/conf/main.ts")
    );
    // `baseUrl` alone makes `plain/thing` a repository path.
    assert_eq!(
        at("app/src/main.ts", "plain/thing").as_deref(),
        Some("app/src/plain/thing.ts")
    );
    // The config applies below its directory only.
    assert_eq!(at("packages/ui/src/main.ts", "@lib/math"), None);
    // Workspace packages by name: the declared entry, subpaths under the package or its src/.
    assert_eq!(
        at("app/src/main.ts", "@acme/ui").as_deref(),
        Some("packages/ui/src/main.ts")
    );
    assert_eq!(
        at("app/src/main.ts", "@acme/ui/button").as_deref(),
        Some("packages/ui/src/button.tsx")
    );
    assert_eq!(
        at("app/src/main.ts", "util-pkg").as_deref(),
        Some("packages/util/lib/entry.ts")
    );
    // A name that merely starts like a package's is another package.
    assert_eq!(at("app/src/main.ts", "@acme/uikit"), None);
    // node_modules is never a workspace.
    assert_eq!(at("app/src/main.ts", "left-pad"), None);
    assert_eq!(at("app/src/main.ts", "react"), None);
    let before = r.layout_signature();
    write("packages/ui/package.json", r#"{"name": "@acme/widgets"}"#);
    assert_ne!(
        Resolver::new(files.iter().copied(), root.path()).layout_signature(),
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
    assert_eq!(
        r.resolve(rs, "src/a/b.rs", "crate::store", Some("Db"))
            .as_deref(),
        Some("src/store.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/b.rs", "crate::store::query", Some("*"))
            .as_deref(),
        Some("src/store/query.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/b.rs", "super", Some("X")).as_deref(),
        Some("src/a/mod.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/b.rs", "super::super::store", Some("Db"))
            .as_deref(),
        Some("src/store.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/mod.rs", "self", Some("b")).as_deref(),
        Some("src/a/b.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/lib.rs", "self", Some("store"))
            .as_deref(),
        Some("src/store.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/store.rs", "self", Some("query"))
            .as_deref(),
        Some("src/store/query.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/b.rs", "crate", Some("Thing"))
            .as_deref(),
        Some("src/lib.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/b.rs", "std::collections", Some("HashMap")),
        None
    );
    // Integration tests: each file in tests/ is a crate root; `mod common;` is tests/common/mod.rs.
    let t = resolver(&["tests/indexing.rs", "tests/common/mod.rs"]);
    assert_eq!(
        t.resolve(rs, "tests/indexing.rs", "self", Some("common"))
            .as_deref(),
        Some("tests/common/mod.rs")
    );
    // Edition 2018: a child module without `self::`; other crates stay unresolved.
    assert_eq!(
        r.resolve(rs, "src/lib.rs", "store", Some("Db")).as_deref(),
        Some("src/store.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/a/mod.rs", "b", Some("X")).as_deref(),
        Some("src/a/b.rs")
    );
    assert_eq!(
        r.resolve(rs, "src/lib.rs", "serde", Some("Serialize")),
        None
    );
}

#[test]
fn java_classes_and_packages() {
    let r = resolver(&[
        "src/main/java/com/x/A.java",
        "src/main/java/com/x/util/B.java",
    ]);
    let java = by_name("java").unwrap();
    assert_eq!(
        r.resolve(java, "src/main/java/com/x/A.java", "com.x.util", Some("B"))
            .as_deref(),
        Some("src/main/java/com/x/util/B.java")
    );
    assert_eq!(
        r.resolve(
            java,
            "src/main/java/com/x/util/B.java",
            "com.x.A",
            Some("run")
        )
        .as_deref(),
        Some("src/main/java/com/x/A.java")
    );
    assert_eq!(
        r.resolve(java, "src/main/java/com/x/A.java", "com.x.util", Some("*"))
            .as_deref(),
        Some("src/main/java/com/x/util")
    );
    assert_eq!(
        r.resolve(
            java,
            "src/main/java/com/x/A.java",
            "java.util",
            Some("List")
        ),
        None
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
    let resolve = |module: &str| r.resolve(c, "src/main.c", module, Some("*"));
    assert_eq!(resolve("local.h").as_deref(), Some("src/local.h"));
    assert_eq!(resolve("util.h").as_deref(), Some("include/util.h"));
    assert_eq!(
        resolve("net/sock.h").as_deref(),
        Some("lib/include/net/sock.h")
    );
    // `<...>` is searched in the include directories only, then outside.
    assert_eq!(resolve("<util.h>").as_deref(), Some("include/util.h"));
    assert_eq!(resolve("<local.h>"), None);
    assert_eq!(resolve("<stdio.h>"), None);
    assert_eq!(resolve("../../etc/passwd"), None);
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
    let r = Resolver::new(["src/a.c", "third/api/api.h", "include/api.h"], root);
    let c = by_name("c").unwrap();
    // Only the database's directories: `include/` is not guessed then.
    assert_eq!(
        r.resolve(c, "src/a.c", "api.h", Some("*")).as_deref(),
        Some("third/api/api.h")
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
    assert_eq!(
        r.resolve(ruby, "bin/checkout.rb", "shop/pricing", Some("*"))
            .as_deref(),
        Some("lib/shop/pricing.rb")
    );
    assert_eq!(
        r.resolve(ruby, "bin/checkout.rb", "./../lib/shop/pricing", Some("*"))
            .as_deref(),
        Some("lib/shop/pricing.rb")
    );
    assert_eq!(r.resolve(ruby, "bin/checkout.rb", "json", Some("*")), None);
    let bash = by_name("bash").unwrap();
    assert_eq!(
        r.resolve(bash, "scripts/deploy.sh", "./lib/log.sh", Some("*"))
            .as_deref(),
        Some("scripts/lib/log.sh")
    );
    assert_eq!(
        r.resolve(bash, "scripts/deploy.sh", "lib/log.sh", Some("*"))
            .as_deref(),
        Some("scripts/lib/log.sh")
    );
    let lua = by_name("lua").unwrap();
    assert_eq!(
        r.resolve(lua, "main.lua", "acme.util", None).as_deref(),
        Some("acme/util.lua")
    );
    assert_eq!(
        r.resolve(lua, "main.lua", "acme", None).as_deref(),
        Some("acme/init.lua")
    );
    assert_eq!(
        r.resolve(lua, "main.lua", "pl.utils", None).as_deref(),
        Some("share/lua/5.4/pl/utils.lua")
    );
    let swift = by_name("swift").unwrap();
    assert_eq!(
        r.resolve(swift, "Sources/App/main.swift", "Geometry", Some("*"))
            .as_deref(),
        Some("Sources/Geometry")
    );
    assert_eq!(
        r.resolve(swift, "Sources/App/main.swift", "Foundation", Some("*")),
        None
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
    assert_eq!(
        r.resolve(cs, "src/Acme.App/Worker.cs", "Acme.Util", Some("*"))
            .as_deref(),
        Some("src/Acme.Util")
    );
    assert_eq!(
        r.resolve(cs, "src/Acme.App/Worker.cs", "Acme.Util", Some("Strings"))
            .as_deref(),
        Some("src/Acme.Util/Strings.cs")
    );
    assert_eq!(
        r.resolve(cs, "src/Acme.App/Worker.cs", "System", Some("*")),
        None
    );
    let php = by_name("php").unwrap();
    // Without a composer.json: by path suffix.
    assert_eq!(
        r.resolve(
            php,
            "app/helpers.php",
            "App\\Http\\Controllers",
            Some("Home")
        )
        .as_deref(),
        Some("app/Http/Controllers/Home.php")
    );
    assert_eq!(
        r.resolve(
            php,
            "app/Http/Controllers/Home.php",
            ".//../../helpers.php",
            Some("*")
        )
        .as_deref(),
        Some("app/helpers.php")
    );
    // A Kotlin package directory before a Java one of the same name.
    let kotlin = by_name("kotlin").unwrap();
    assert_eq!(
        r.resolve(kotlin, "kt/com/acme/App.kt", "com.acme.util", Some("trim"))
            .as_deref(),
        Some("kt/com/acme/util")
    );
}
