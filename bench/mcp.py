#!/usr/bin/env python3
"""MCP server load: 8 clients x 200 calls over the Django 5.2.8 sdist, with a
file rewritten underneath every 50 ms.

Usage: python3 bench/mcp.py [--runs N] [--no-build] [--clients 8] [--calls 200] [--no-churn]

Builds evident and the load driver (crates/evident/examples/mcp_load.rs) in
release mode, indexes Django (fetched by bench/index.py's helper), then, N
times each:
  - processes: each client its own `evident mcp` process (as editors run them),
  - shared: the clients as tasks on one connection (requests in flight in one
    server at once),
  - baseline: the same calls through the CLI, one `evident` process per call
    (what an agent without MCP would shell out to), by as many workers.
Prints throughput (calls/s), p50/p95 latency, errors and stale answers, and
the throughput ratio of each MCP mode to the CLI baseline.
"""
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402

MIX = [
    ("search_code", {"query": "queryset filter"}),
    ("find_symbol", {"name": "get_object_or_404"}),
    ("read_evidence", {"path": "django/shortcuts.py", "start_line": 1, "end_line": 60}),
    ("find_importers", {"module": "django.shortcuts"}),
    ("get_callers", {"symbol": "get_object_or_404"}),
    ("analyze_impact", {"symbol": "get_object_or_404"}),
    ("list_sources", {"name_contains": "tutorial"}),
    ("search_code", {"query": "password hashing algorithm"}),
]


def cli_args(tool, arguments):
    """The CLI command that answers the same call."""
    return {
        "search_code": lambda a: ["search", a["query"], "--limit", "10"],
        "find_symbol": lambda a: ["symbol", a["name"]],
        "read_evidence": lambda a: ["read", a["path"], str(a["start_line"]), str(a["end_line"])],
        "find_importers": lambda a: ["importers", a["module"]],
        "get_callers": lambda a: ["callers", a["symbol"]],
        "analyze_impact": lambda a: ["impact", a["symbol"]],
        "list_sources": lambda a: ["sources", "--name-contains", a["name_contains"]],
    }[tool](arguments)


def percentile(values, p):
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


def baseline(evident, corpus, clients, calls):
    """The mix through the CLI: `clients` workers, one process per call."""
    def one(i):
        tool, arguments = MIX[i % len(MIX)]
        started = time.perf_counter()
        out = subprocess.run([evident, "--repo", str(corpus), *cli_args(tool, arguments)],
                             capture_output=True, text=True)
        # Exit 1 is "nothing found"; anything else is an error.
        return (time.perf_counter() - started) * 1e3, out.returncode not in (0, 1)

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(one, range(clients * calls)))
    seconds = time.perf_counter() - started
    latencies = [ms for ms, _ in results]
    return {
        "mode": "cli", "calls": len(results), "errors": sum(err for _, err in results),
        "seconds": seconds, "calls_per_s": len(results) / seconds,
        "p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95), "stale": 0,
    }


def main():
    def configure(parser):
        parser.add_argument("--clients", type=int, default=8)
        parser.add_argument("--calls", type=int, default=200)
        parser.add_argument("--no-churn", action="store_true",
                            help="leave the files alone (to see what the refreshes cost)")
        parser.add_argument("--baseline-calls", type=int, default=25,
                            help="calls per worker for the CLI baseline (it is slow)")

    args, evident = index_bench.setup(configure, runs=3)
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "evident", "--example", "mcp_load", "--quiet"],
                       cwd=index_bench.ROOT, check=True)
    driver = str(index_bench.ROOT / "target" / "release" / "examples" / "mcp_load")
    corpus = index_bench.fetch_corpus()
    subprocess.run([evident, "index", "--quiet", str(corpus)], check=True)
    churn = corpus / "django" / "_evident_churn.py"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as mix_file:
        json.dump([[tool, arguments] for tool, arguments in MIX], mix_file)

    runs = {"processes": [], "shared": [], "cli": []}
    try:
        for _ in range(args.runs):
            for mode in ("processes", "shared"):
                cmd = [driver, "--evident", evident, "--repo", str(corpus), "--mix", mix_file.name,
                       "--clients", str(args.clients), "--calls", str(args.calls)]
                if not args.no_churn:
                    cmd += ["--churn", str(churn)]
                if mode == "shared":
                    cmd.append("--shared")
                out = subprocess.run(cmd, check=True, capture_output=True, text=True)
                runs[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
            runs["cli"].append(baseline(evident, corpus, args.clients, args.baseline_calls))
    finally:
        churn.unlink(missing_ok=True)
        pathlib.Path(mix_file.name).unlink(missing_ok=True)

    churning = "no file changing" if args.no_churn else "a file rewritten every 50 ms during the MCP runs"
    print(f"corpus: Django {index_bench.VERSION} sdist; {args.clients} clients; {args.runs} runs; {churning}")
    cli_rate = statistics.median(r["calls_per_s"] for r in runs["cli"])
    for mode, results in runs.items():
        rate = statistics.median(r["calls_per_s"] for r in results)
        p50 = statistics.median(r["p50_ms"] for r in results)
        p95 = statistics.median(r["p95_ms"] for r in results)
        calls = sum(r["calls"] for r in results)
        errors = sum(r["errors"] for r in results)
        stale = sum(r["stale"] for r in results)
        print(f"{mode:10} {rate:8.1f} calls/s  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  "
              f"calls {calls:5}  errors {errors}  stale {stale}  x{rate / cli_rate:.1f} the CLI")
        for r in results:
            if r.get("first_errors"):
                print("   first errors:", r["first_errors"])


if __name__ == "__main__":
    main()
