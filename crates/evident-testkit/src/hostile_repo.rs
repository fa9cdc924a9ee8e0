//! A repository built to be attacked (shared by the escape-corpus tests of the
//! agent and of the MCP server): ordinary code, and beside it every kind of
//! file a tool must never show. Each forbidden file holds [`CANARY`], so a
//! test can check that no output ever contains it.

use std::path::{Path, PathBuf};

/// One hostile call of the escape corpus (`crates/evident-agent/tests/escape_corpus.json`),
/// shared by the agent's and the MCP server's escape tests.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct EscapeCase {
    pub tool: String,
    /// The arguments as the model writes them, with `{repo}` and `{outside}` to expand.
    pub arguments: String,
    /// Words the refusal must contain.
    pub refused_with: String,
    pub why: String,
    /// Where the MCP server's refusal differs from the agent's: "json-rpc
    /// error" (the request is not a well-formed `tools/call`), or "ignored"
    /// (the line is not JSON the SDK can read, so nothing answers it).
    #[serde(default)]
    pub mcp_refused_with: Option<String>,
}

/// The escape corpus, every case.
pub fn escape_corpus() -> Vec<EscapeCase> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../evident-agent/tests/escape_corpus.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// In every file no tool may show.
pub const CANARY: &str = "CANARY-7f3a9e";

pub struct Hostile {
    _dir: tempfile::TempDir,
    /// The repository (canonical).
    pub repo: PathBuf,
    /// A directory beside it, outside the repository.
    pub outside: PathBuf,
}

impl Hostile {
    /// `text` with `{repo}` and `{outside}` replaced by the real paths.
    pub fn expand(&self, text: &str) -> String {
        text.replace("{repo}", &self.repo.display().to_string())
            .replace("{outside}", &self.outside.display().to_string())
    }
}

fn write(path: &Path, text: &str) {
    crate::fs::write(path, text);
}

pub fn hostile_repo() -> Hostile {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let repo = base.join("repo");
    let outside = base.join("outside");
    let secret = |name: &str| format!("{CANARY} {name}\n");

    write(
        &repo.join("app.py"),
        "import util\n\n\ndef main():\n    return util.helper(1)\n",
    );
    write(&repo.join("util.py"), "def helper(x):\n    return x + 1\n");
    write(&repo.join("docs/guide.md"), "# Guide\n\nRun main.\n");
    for name in [
        ".env",
        ".env.local",
        ".env.production",
        "config/server.pem",
        "id_rsa",
        "keys/deploy.key",
        ".aws/credentials",
        ".ssh/id_ed25519",
        ".netrc",
        ".npmrc",
        ".pypirc",
        "terraform.tfstate",
        "credentials.json",
        "gcloud/application_default_credentials.json",
        ".kube/config",
        ".docker/config.json",
        ".git-credentials",
        ".azure/accessTokens.json",
        "deploy/prod-service-account.json",
    ] {
        write(&repo.join(name), &secret(name));
    }
    write(&outside.join("secret.txt"), &secret("outside"));
    write(
        &outside.join("secret.py"),
        &format!("TOKEN = \"{CANARY}\"\n"),
    );
    // Larger than the default 1 MiB limit, and binary.
    write(&repo.join("big.py"), &"x = 1\n".repeat(200_000));
    std::fs::write(repo.join("blob.py"), b"\x00\x01\x02binary\x00").unwrap();

    crate::git::git(&repo, &["init", "-q"]);
    let config = repo.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "[remote \"origin\"]\n\turl = https://user:{CANARY}@example.com/x.git\n"
    ));
    std::fs::write(&config, text).unwrap();

    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(outside.join("secret.txt"), repo.join("link_out")).unwrap();
        symlink(&outside, repo.join("link_dir")).unwrap();
        symlink("../outside/secret.txt", repo.join("rel_link")).unwrap();
        symlink("/etc/passwd", repo.join("link_etc")).unwrap();
        symlink("loop_b", repo.join("loop_a")).unwrap();
        symlink("loop_a", repo.join("loop_b")).unwrap();
        symlink("self_loop", repo.join("self_loop")).unwrap();
        symlink("nowhere.py", repo.join("broken.py")).unwrap();
        symlink(".env", repo.join("env_link.py")).unwrap();
        std::fs::hard_link(outside.join("secret.py"), repo.join("hard.py")).unwrap();
    }
    Hostile {
        _dir: dir,
        repo,
        outside,
    }
}
