#!/usr/bin/env python3
"""The agent's own cost per step, and end-to-end `evident ask` with a real model.

Usage: python3 bench/agent.py [--runs N] [--no-build] [--no-real] [--threads T]
       python3 bench/agent.py --questions [--models 1.5B,0.5B] [--protocols auto,constrained]
                              [--ask-flags "--no-prefetch --all-tools"] [--only N] [--out FILE]

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
3. --questions: the question set of bench/agent_questions.json (importers,
   callers, impact, definition, search-and-explain, diff, document questions
   and no-tool controls) over two PyPI sdists and one crate from crates.io,
   fetched here; the diff questions run on a git copy with edits the file
   names. For each model and protocol, llama-server -c 8192 -t T and
   `evident ask --json` per question. An answer is right when it names every
   expected item and (but for the controls) cites at least one line that the
   evidence supports. Reports, per configuration and per half (A tuned on,
   B held out): share right, median and p90 seconds, model calls, prompt
   tokens, repeats stopped, answers from the last call, empty answers.
"""
import http.server
import json
import re
import shutil
import tarfile
import urllib.error
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ask_corpora  # noqa: E402
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


QUESTIONS = pathlib.Path(__file__).resolve().parent / "agent_questions.json"
UNSEEN = pathlib.Path(__file__).resolve().parent / "ask_unseen.json"
CORPORA = index_bench.WORK / "agent"


def fetch(corpus):
    """The corpus's source tree, fetched once from its registry into bench/.work/agent."""
    target = CORPORA / corpus["dir"]
    if target.is_dir():
        return target
    CORPORA.mkdir(parents=True, exist_ok=True)
    if corpus["kind"] == "pypi":
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        f"{corpus['name']}=={corpus['version']}", "-d", str(CORPORA)], check=True)
        archive = next(CORPORA.glob(f"{corpus['name']}-{corpus['version']}.tar.gz"))
    else:
        archive = CORPORA / f"{corpus['dir']}.crate"
        url = f"https://static.crates.io/crates/{corpus['name']}/{corpus['dir']}.crate"
        with urllib.request.urlopen(url, timeout=60) as response:
            archive.write_bytes(response.read())
    with tarfile.open(archive) as tar:
        tar.extractall(CORPORA, filter="data")
    return target


def prepare(corpus, base):
    """A git copy of the corpus, committed, then edited as the question set says
    (the diff questions ask about those edits), then indexed."""
    repo = base / corpus["dir"]
    shutil.copytree(ask_corpora.fetch(corpus) if "lang" in corpus else fetch(corpus), repo)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-q", "-m", "as released"], cwd=repo, check=True)
    for path, anchor, line in corpus["edits"]:
        text = (repo / path).read_text()
        assert anchor in text, f"{path}: the edit's anchor is missing"
        (repo / path).write_text(text.replace(anchor, anchor + line, 1))
    return repo


def named(answer, item):
    """Whether the answer names `item`: a name as a word, anything else as text."""
    if re.fullmatch(r"\w+", item):
        return re.search(rf"(?<![\w]){re.escape(item)}(?![\w])", answer, re.IGNORECASE) is not None
    return item.lower() in answer.lower()


def is_right(q, end):
    """Names every expected item and cites a line the evidence supports
    (inside the section, for a docs question); a general question must be
    answered without any tool."""
    answer = end.get("answer", "")
    if not all(named(answer, item) for item in q["expect"]):
        return False
    stats = end.get("stats", {})
    if q["shape"] in ("control", "general"):
        return q["shape"] == "control" or (end.get("tool_calls", 0) == 0 and stats.get("prefetched", 0) == 0)
    supported = [c for c in end.get("citations", []) if c.get("support") == "supported"]
    if "cite_within" in q:
        path, start, stop = q["cite_within"]
        supported = [c for c in supported if c["path"] == path and c["start_line"] <= stop and c["end_line"] >= start]
    return bool(supported)


def ask_one(evident, repo, question, base, model, protocol, extra):
    started = time.perf_counter()
    try:
        out = subprocess.run([evident, "--repo", str(repo), "--json", "ask", question, "--provider", "openai",
                              "--base-url", base, "--model", model, "--protocol", protocol,
                              "--context-tokens", "8192", "--timeout", "240", *extra],
                             capture_output=True, text=True, timeout=300)
        stdout = out.stdout
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    seconds = time.perf_counter() - started
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    end = next((e for e in reversed(events) if e.get("event") == "finished"), {})
    return seconds, end


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


def questions(evident, args):
    spec = json.loads((UNSEEN if args.set == "unseen" else QUESTIONS).read_text())
    chosen = [q for q in spec["questions"] if args.half in ("all", q["half"])
              and (not args.shape or q["shape"] in args.shape.split(","))]
    if args.every > 1:
        # Every Nth of each half's shape, so the sample keeps every shape in both halves.
        seen = {}
        kept = []
        for q in chosen:
            k = seen[(q["half"], q["shape"])] = seen.get((q["half"], q["shape"]), -1) + 1
            if k % args.every == args.offset:
                kept.append(q)
        chosen = kept
    chosen = chosen[: args.only] if args.only else chosen
    base_dir = pathlib.Path(tempfile.mkdtemp(prefix="evident-agent-questions-"))
    repos = {}
    for name in sorted({q["corpus"] for q in chosen}):
        repos[name] = prepare(spec["corpora"][name], base_dir)
        subprocess.run([evident, "index", "--quiet", str(repos[name])], check=True)
    cache = pathlib.Path(subprocess.run([str(ROOT / "scripts" / "provision-llm.sh")], check=True,
                                        capture_output=True, text=True).stdout.strip())
    extra = args.ask_flags.split()
    models = dict(llm_bench.MODELS)
    rows = []
    for label in args.models.split(","):
        server, base = llm_bench.start_server(cache, models[label], args.threads, context=8192)
        try:
            for protocol in args.protocols.split(","):
                for q in chosen:
                    seconds, end = ask_one(evident, repos[q["corpus"]], q["q"], base,
                                           f"qwen2.5-coder-{label.lower()}", protocol, extra)
                    answer = end.get("answer", "")
                    right = is_right(q, end)
                    stats = end.get("stats", {})
                    row = {"model": label, "protocol": protocol, "q": q["q"], "shape": q["shape"], "half": q["half"],
                           "right": right, "seconds": round(seconds, 1), "reason": (end.get("reason") or {}).get("reason"),
                           "answered_by": end.get("answered_by"), "empty": not answer.strip(),
                           "model_calls": stats.get("model_calls", 0), "prompt_tokens": stats.get("prompt_tokens", 0),
                           "prompt_ms": stats.get("prompt_ms", 0), "repeats": stats.get("repeats", 0),
                           "prefetched": stats.get("prefetched", 0), "citations": len(end.get("citations", [])),
                           "added": sum(1 for c in end.get("citations", []) if c.get("added")),
                           "intent": stats.get("intent"), "intent_from": stats.get("intent_from"),
                           "corpus": q["corpus"], "form": q.get("form"),
                           "answer": answer}
                    rows.append(row)
                    print(f"  {label} {protocol:11} {'RIGHT' if right else 'wrong'} {seconds:6.1f} s "
                          f"calls {row['model_calls']} prompt {row['prompt_tokens']:5} {row['answered_by']} "
                          f"{q['shape']:10} {q['q'][:60]}", flush=True)
        finally:
            server.kill()
    print(f"\nquestion set: {len(chosen)} questions, llama-server -c 8192 -t {args.threads}, ask flags {extra or 'none'}")
    print("| model | protocol | half | right | median s | p90 s | model calls/q | prompt tokens/q | repeats stopped | last-call answers | empty | citations added |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label in args.models.split(","):
        for protocol in args.protocols.split(","):
            for half in ("A", "B", "all"):
                part = [r for r in rows if r["model"] == label and r["protocol"] == protocol
                        and (half == "all" or r["half"] == half)]
                if not part:
                    continue
                right = sum(r["right"] for r in part)
                times = [r["seconds"] for r in part]
                print(f"| {label} | {protocol} | {half} | {right}/{len(part)} ({100 * right / len(part):.0f}%) | "
                      f"{statistics.median(times):.1f} | {pct(times, 90):.1f} | "
                      f"{statistics.mean(r['model_calls'] for r in part):.2f} | "
                      f"{statistics.mean(r['prompt_tokens'] for r in part):.0f} | "
                      f"{sum(r['repeats'] for r in part)} | "
                      f"{sum(r['answered_by'] == 'last_call' for r in part)} | "
                      f"{sum(r['empty'] for r in part)} | {sum(r['added'] for r in part)} |")
    by_shape(rows)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(rows, indent=1))


def by_shape(rows):
    """Per configuration, half and shape: right, seconds, calls, tokens, where the intent came from."""
    print("\n| model | protocol | half | shape | right | median s | p90 s | model calls/q | prompt tokens/q | intent from rules / model |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    keys = sorted({(r["model"], r["protocol"], r["half"], r["shape"]) for r in rows})
    for model, protocol, half, shape in keys:
        part = [r for r in rows if (r["model"], r["protocol"], r["half"], r["shape"]) == (model, protocol, half, shape)]
        right = sum(r["right"] for r in part)
        times = [r["seconds"] for r in part]
        rules = sum(r.get("intent_from") == "rules" for r in part)
        model_said = sum(r.get("intent_from") == "model" for r in part)
        print(f"| {model} | {protocol} | {half} | {shape} | {right}/{len(part)} | {statistics.median(times):.1f} | "
              f"{pct(times, 90):.1f} | {statistics.mean(r['model_calls'] for r in part):.2f} | "
              f"{statistics.mean(r['prompt_tokens'] for r in part):.0f} | {rules} / {model_said} |")


def main():
    def configure(p):
        p.add_argument("--no-real", action="store_true")
        p.add_argument("--threads", type=int, default=2)
        p.add_argument("--questions", action="store_true")
        p.add_argument("--models", default="1.5B,0.5B")
        p.add_argument("--protocols", default="auto,constrained")
        p.add_argument("--ask-flags", default="")
        p.add_argument("--only", type=int, default=0)
        p.add_argument("--set", choices=["own", "unseen"], default="own",
                       help="own: bench/agent_questions.json; unseen: bench/ask_unseen.json (bench/ask_questions.py)")
        p.add_argument("--half", choices=["A", "B", "all"], default="all")
        p.add_argument("--shape", default="", help="only these shapes (comma-separated)")
        p.add_argument("--every", type=int, default=1, help="every Nth question (a sample that keeps every shape)")
        p.add_argument("--offset", type=int, default=0,
                       help="with --every N, keep the questions at this offset (0..N-1): "
                            "--every 2 --offset 1 is the other half of the sample")
        p.add_argument("--out", default="")
    args, evident = index_bench.setup(configure, runs=5)
    if args.questions:
        questions(evident, args)
        return
    overhead(evident, args.runs)
    if not args.no_real:
        end_to_end(evident, args.runs, args.threads)


if __name__ == "__main__":
    main()
