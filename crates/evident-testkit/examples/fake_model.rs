//! The fake model server as a process, for tests outside Rust (the browser
//! tests of `evident serve`): an OpenAI-compatible server on 127.0.0.1 that
//! answers `/v1/chat/completions` with the replies given as arguments, in
//! order, as SSE, byte for byte as the agent tests script them.
//!
//! Usage: fake_model 'call:TOOL:{"json":"args"}' 'say:the answer' ...
//! Prints the server's base URL (`http://127.0.0.1:PORT`), then serves until
//! killed.

use evident_testkit::script::{calls, say};
use evident_testkit::FakeServer;

const CHAT: &str = "/v1/chat/completions";

fn main() {
    let server = FakeServer::start();
    for reply in std::env::args().skip(1) {
        if let Some(text) = reply.strip_prefix("say:") {
            server.push(CHAT, say(text));
        } else if let Some(call) = reply.strip_prefix("call:") {
            let (tool, arguments) = call.split_once(':').expect("call:TOOL:ARGS");
            server.push(CHAT, calls(&[(tool, arguments)]));
        } else {
            eprintln!("fake_model: a reply is say:TEXT or call:TOOL:ARGS, not {reply:?}");
            std::process::exit(2);
        }
    }
    println!("{}", server.base);
    loop {
        std::thread::park();
    }
}
