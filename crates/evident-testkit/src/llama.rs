//! Starts llama.cpp's `llama-server` with a model provisioned by
//! `scripts/provision-llm.sh`, for the end-to-end test and the benchmark.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const MODEL_1_5B: &str = "qwen2.5-coder-1.5b-q4_k_m.gguf";
pub const MODEL_0_5B: &str = "qwen2.5-coder-0.5b-q4_k_m.gguf";

/// Where the provisioning script puts things.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("EVIDENT_LLM_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/evident/llm")
        }
    }
}

/// The server and model files, or why they are missing.
pub fn provisioned(model: &str) -> Result<(PathBuf, PathBuf), String> {
    let dir = cache_dir();
    let server = dir.join("llama-server");
    let model = dir.join(model);
    for path in [&server, &model] {
        if !path.is_file() {
            return Err(format!(
                "{} is missing: run scripts/provision-llm.sh",
                path.display()
            ));
        }
    }
    Ok((server, model))
}

/// The server and model files, or `None` after recording the skip for `test`
/// (a failure under `EVIDENT_REQUIRE_REAL_MODEL=1`).
pub fn provisioned_or_skip(model: &str, test: &str) -> Option<(PathBuf, PathBuf)> {
    match provisioned(model) {
        Ok(paths) => Some(paths),
        Err(why) => {
            crate::skip::missing(Some("EVIDENT_REQUIRE_REAL_MODEL"), test, &why);
            None
        }
    }
}

pub struct LlamaServer {
    child: Child,
    pub base_url: String,
    pub log: PathBuf,
}

impl LlamaServer {
    /// Starts the server and waits until it answers `/health` with 200.
    pub fn start(server: &Path, model: &Path, threads: u32) -> LlamaServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = std::env::temp_dir().join(format!("evident-llama-server-{port}.log"));
        let child = Command::new(server)
            .args([
                "-m",
                model.to_str().unwrap(),
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .args([
                "-c",
                "4096",
                "-t",
                &threads.to_string(),
                "-np",
                "1",
                "--jinja",
                "--no-webui",
            ])
            .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
            .stderr(Stdio::from(
                std::fs::File::options().append(true).open(&log).unwrap(),
            ))
            .spawn()
            .expect("llama-server starts");
        let mut server = LlamaServer {
            child,
            base_url: format!("http://127.0.0.1:{port}/v1"),
            log,
        };
        server.wait_healthy(Duration::from_secs(180));
        server
    }

    fn wait_healthy(&mut self, limit: Duration) {
        let started = Instant::now();
        let health = self.base_url.trim_end_matches("/v1").to_string() + "/health";
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent();
        while started.elapsed() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "llama-server exited with {status}: {}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
            if agent.get(&health).call().is_ok_and(|r| r.status() == 200) {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!(
            "llama-server was not healthy after {limit:?}; log: {}",
            self.log.display()
        );
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
