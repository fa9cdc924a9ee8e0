//! Names the commit a binary was built from, for `evident --version`, when
//! it is built from a git checkout (a source tarball has no commit to name).

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// Rebuilds when HEAD moves: HEAD itself, the branch it names, and the
/// packed refs (a branch file that does not exist would rebuild every time).
fn watch_head() {
    let paths = ["HEAD", "packed-refs"]
        .into_iter()
        .map(String::from)
        .chain(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in paths {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]).map(PathBuf::from) {
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env!("CARGO_PKG_VERSION");
    let commit = git(&["rev-parse", "--short=10", "HEAD"]);
    let long = match commit {
        Some(commit) => {
            watch_head();
            let date = git(&["log", "-1", "--format=%cs", "HEAD"]).unwrap_or_default();
            format!("{version} ({commit} {date})")
        }
        None => version.to_string(),
    };
    println!("cargo:rustc-env=EVIDENT_LONG_VERSION={}", long.trim());
}
