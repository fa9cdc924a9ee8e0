//! Load driver for `evident mcp` (run by `bench/mcp.py`): N clients × M calls
//! of a mix of tools, with a file rewritten underneath every 50 ms; prints one
//! JSON line of throughput, latency percentiles and errors.
//!
//! ```text
//! mcp_load --evident BIN --repo DIR --mix MIX.json [--clients 8] [--calls 200]
//!          [--shared] [--churn FILE]
//! ```
//! MIX.json is a list of `[tool, arguments]`; client `c`'s call `i` is entry
//! `(c + i) % len`. Without `--shared` each client is its own server process
//! (how editors run MCP servers); with it, the clients are tasks sharing one
//! connection, so their requests are in flight in one server at once. Each
//! client makes one untimed call first (the server's start-up refresh).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

struct Args {
    evident: PathBuf,
    repo: PathBuf,
    mix: Vec<(String, JsonObject)>,
    clients: usize,
    calls: usize,
    shared: bool,
    churn: Option<PathBuf>,
}

fn parse_args() -> Args {
    let mut args = std::env::args().skip(1);
    let (mut evident, mut repo, mut mix, mut churn) = (None, None, None, None);
    let (mut clients, mut calls, mut shared) = (8, 200, false);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--evident" => evident = Some(PathBuf::from(value())),
            "--repo" => repo = Some(PathBuf::from(value())),
            "--mix" => {
                let text = std::fs::read_to_string(value()).expect("the mix file");
                let list: Vec<(String, JsonObject)> =
                    serde_json::from_str(&text).expect("a list of [tool, arguments]");
                mix = Some(list);
            }
            "--clients" => clients = value().parse().expect("a number"),
            "--calls" => calls = value().parse().expect("a number"),
            "--shared" => shared = true,
            "--churn" => churn = Some(PathBuf::from(value())),
            other => panic!("unknown flag {other}"),
        }
    }
    Args {
        evident: evident.expect("--evident"),
        repo: repo.expect("--repo"),
        mix: mix.expect("--mix"),
        clients,
        calls,
        shared,
        churn,
    }
}

async fn connect(args: &Args) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(&args.evident);
    command.arg("mcp").arg("--repo").arg(&args.repo);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("evident mcp starts");
    ().serve(transport).await.expect("initialize")
}

#[derive(Default)]
struct Tally {
    latencies_ms: Vec<f64>,
    errors: Vec<String>,
    stale: usize,
}

async fn run_client(
    peer: Peer<RoleClient>,
    mix: Arc<Vec<(String, JsonObject)>>,
    client: usize,
    calls: usize,
) -> Tally {
    let mut tally = Tally::default();
    let request = |i: usize| {
        let (name, arguments) = &mix[(client + i) % mix.len()];
        CallToolRequestParams::new(name.clone()).with_arguments(arguments.clone())
    };
    let _ = peer.call_tool(request(0)).await;
    for i in 0..calls {
        let started = Instant::now();
        let outcome = peer.call_tool(request(i)).await;
        tally
            .latencies_ms
            .push(started.elapsed().as_secs_f64() * 1e3);
        match outcome {
            Ok(result) if result.is_error == Some(true) => {
                tally.errors.push(format!("{:?}", result.content))
            }
            Ok(result) => {
                if result
                    .structured_content
                    .as_ref()
                    .is_some_and(|s| s["stale"] == true)
                {
                    tally.stale += 1;
                }
            }
            Err(error) => tally.errors.push(error.to_string()),
        }
    }
    tally
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args = parse_args();
    let mix = Arc::new(args.mix.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let churner = args.churn.clone().map(|path| {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                std::fs::write(&path, format!("def churn_{n}():\n    return {n}\n"))
                    .expect("churn file");
                std::thread::sleep(Duration::from_millis(50));
            }
            n
        })
    });
    let mut sessions = Vec::new();
    let mut peers = Vec::new();
    if args.shared {
        let session = connect(&args).await;
        peers = (0..args.clients).map(|_| session.peer().clone()).collect();
        sessions.push(session);
    } else {
        for _ in 0..args.clients {
            let session = connect(&args).await;
            peers.push(session.peer().clone());
            sessions.push(session);
        }
    }
    let started = Instant::now();
    let tasks: Vec<_> = peers
        .into_iter()
        .enumerate()
        .map(|(client, peer)| tokio::spawn(run_client(peer, mix.clone(), client, args.calls)))
        .collect();
    let mut all = Tally::default();
    for task in tasks {
        let tally = task.await.expect("a client task");
        all.latencies_ms.extend(tally.latencies_ms);
        all.errors.extend(tally.errors);
        all.stale += tally.stale;
    }
    let seconds = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let rewrites = churner.map(|t| t.join().unwrap_or(0)).unwrap_or(0);
    for session in sessions {
        let _ = session.cancel().await;
    }
    all.latencies_ms.sort_by(f64::total_cmp);
    let calls = all.latencies_ms.len();
    println!(
        "{}",
        json!({
            "mode": if args.shared { "shared" } else { "processes" },
            "clients": args.clients,
            "calls": calls,
            "errors": all.errors.len(),
            "first_errors": all.errors.iter().take(3).collect::<Vec<_>>(),
            "stale": all.stale,
            "seconds": seconds,
            "calls_per_s": calls as f64 / seconds,
            "p50_ms": percentile(&all.latencies_ms, 50.0),
            "p95_ms": percentile(&all.latencies_ms, 95.0),
            "max_ms": all.latencies_ms.last().copied().unwrap_or(0.0),
            "rewrites": rewrites,
        })
    );
}
