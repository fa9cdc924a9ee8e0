//! Helpers the agent's session tests share (generic ones live in `evident-testkit`).
#![allow(dead_code)]

use std::time::Duration;

use evident_llm::{HttpOptions, OpenAiClient, OpenAiOptions};
use evident_testkit::FakeServer;

/// An OpenAI-compatible client of the fake server, patient enough for a loaded CI machine.
pub fn client(server: &FakeServer) -> OpenAiClient {
    OpenAiClient::new(OpenAiOptions {
        base_url: Some(format!("{}/v1", server.base)),
        api_key: None,
        http: HttpOptions {
            first_token_timeout: Duration::from_secs(10),
            ..Default::default()
        },
    })
}
