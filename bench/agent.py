#!/usr/bin/env python3
"""The agent's own cost per step, and end-to-end `evident ask` with a real model.

Usage: python3 bench/agent.py [--runs N] [--no-build] [--no-real] [--threads T]

1. Overhead per step, model time excluded: a model server written here
   (OpenAI SSE, answering at once) scripts K tool rounds (find_symbol,
   find_importers, search_code, in turn) then an answer; `evident ask` runs on
   the Django 5.2.8 index. (time with K rounds - time with 0 rounds) / K is
   what one step costs evident: validation, running the tool on the index,
   budgeting the result, the HTTP round trip, the state machine. The baseline
   in the same run is the same HTTP round trip made by Python alone.
2. End to end: llama.cpp's llama-server with Qwen2.5-Coder-1.5B
   (scripts/provision-llm.sh) and `evident ask` on a four-file repository shaped
   like seed 000's, N runs of a question that needs two tools; reports the
   median, the first run (nothing cached in the server), rounds, and whether the
   answer named the right files.
"""
import http.server
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402
import llm as llm_bench  # noqa: E402

ROOT = index_bench.ROOT
CALLS = [("find_symbol", {"name": "get_object_or_404"}), ("find_importers", {"module": "django.shortcuts"}),
         ("search_code", {"query": "password hashing"})]


class Scripted(http.server.BaseHTTPRequestHandler):
    """Answers /v1/chat/completions: K rounds of one call, then an answer."""
    rounds = 0

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        if done < Scripted.rounds:
            name, arguments = CALLS[done % len(CALLS)]
            delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": f"c{done}", "type": "function",
                                                          "function": {"name": name, "arguments": json.dumps(arguments)}}]}
            events = [{"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                      {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
        else:
            events = [{"choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]}]
        payload = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def overhead(evident, runs):
    corpus = index_bench.fetch_corpus()
    subprocess.run([evident, "index", "--quiet", str(corpus)], check=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    flags = ["--provider", "openai", "--base-url", base, "--model", "scripted", "--rounds", "20",
             "--context-tokens", "32768"]

    def ask_time(k):
        """Median wall seconds of the whole command, and of the tools' own time within it."""
        Scripted.rounds = k
        times, tool_ms = [], []
        for _ in range(runs):
            started = time.perf_counter()
            out = subprocess.run([evident, "--repo", str(corpus), "--json", "ask", "bench", *flags], check=True,
                                 capture_output=True, text=True)
            times.append(time.perf_counter() - started)
            events = [json.loads(line) for line in out.stdout.splitlines()]
            tool_ms.append(sum(e["ms"] for e in events if e["event"] == "tool_finished"))
        return statistics.median(times), statistics.median(tool_ms)

    (t0, _), (t9, tools9) = ask_time(0), ask_time(9)
    per_step = (t9 - t0) / 9 * 1e3
    tool_step = tools9 / 9
    # The baseline: Python making the same request and reading the stream.
    request = json.dumps({"model": "scripted", "messages": [{"role": "user", "content": "x"}]}).encode()
    started = time.perf_counter()
    for _ in range(50):
        urllib.request.urlopen(urllib.request.Request(f"{base}/chat/completions", data=request,
                                                      headers={"Content-Type": "application/json"})).read()
    http_ms = (time.perf_counter() - started) / 50 * 1e3
    server.shutdown()
    print(f"overhead: Django 5.2.8 index; ask with 0 rounds {t0 * 1e3:.0f} ms, with 9 rounds {t9 * 1e3:.0f} ms "
          f"(median of {runs})")
    print(f"per step: {per_step:.1f} ms in all, of which the tool's own query {tool_step:.1f} ms; "
          f"evident's agent overhead (validation, budget, HTTP, loop) {per_step - tool_step:.1f} ms")
    print(f"baseline: one HTTP round trip to the same server from Python: {http_ms:.2f} ms")


REPO = {
    "rag_common.py": 'PREFIX = "rag"\n\n\ndef get_collection_name(kind):\n    return f"{PREFIX}_{kind}"\n',
    "ingest.py": "from rag_common import get_collection_name\n\n\ndef ingest(doc):\n    return get_collection_name(doc.kind)\n",
    "query.py": "import rag_common\n\n\ndef search(q):\n    return rag_common.get_collection_name(q.kind)\n",
    "util.py": "def helper():\n    return 1\n",
}
QUESTION = "Where is get_collection_name defined, and which files import rag_common?"


def end_to_end(evident, runs, threads):
    cache = pathlib.Path(subprocess.run([str(ROOT / "scripts" / "provision-llm.sh")], check=True,
                                        capture_output=True, text=True).stdout.strip())
    repo = pathlib.Path(tempfile.mkdtemp(prefix="evident-agent-bench-"))
    for name, text in REPO.items():
        (repo / name).write_text(text)
    server, base = llm_bench.start_server(cache, llm_bench.MODELS[0][1], threads)
    rows = []
    try:
        for _ in range(runs):
            started = time.perf_counter()
            out = subprocess.run([evident, "--repo", str(repo), "ask", QUESTION, "--provider", "openai",
                                  "--base-url", base, "--model", "qwen2.5-coder-1.5b", "--context-tokens", "4096",
                                  "--json"], capture_output=True, text=True)
            seconds = time.perf_counter() - started
            finished = [json.loads(line) for line in out.stdout.splitlines() if '"event":"finished"' in line]
            end = finished[-1] if finished else {}
            answer = end.get("answer", "")
            right = all(f in answer for f in ("rag_common.py", "ingest.py", "query.py")) and "util.py" not in answer
            rows.append((seconds, end.get("rounds"), end.get("tool_calls"), right,
                         (end.get("reason") or {}).get("reason")))
    finally:
        server.kill()
    times = [r[0] for r in rows]
    print(f"end to end: Qwen2.5-Coder-1.5B Q4_K_M, llama-server -t {threads}, {runs} runs of {QUESTION!r}")
    print(f"  first run {times[0]:.1f} s (cold prompt cache); median {statistics.median(times):.1f} s; "
          f"median of runs 2..n {statistics.median(times[1:]) if len(times) > 1 else times[0]:.1f} s")
    for seconds, rounds, calls, right, reason in rows:
        print(f"  {seconds:6.1f} s  {reason}  rounds {rounds}  tool calls {calls}  right files named: {right}")


def main():
    def configure(p):
        p.add_argument("--no-real", action="store_true")
        p.add_argument("--threads", type=int, default=2)
    args, evident = index_bench.setup(configure, runs=5)
    overhead(evident, args.runs)
    if not args.no_real:
        end_to_end(evident, args.runs, args.threads)


if __name__ == "__main__":
    main()
