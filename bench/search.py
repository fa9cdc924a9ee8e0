#!/usr/bin/env python3
"""BM25 search latency on the Django 5.2.8 sdist index (fetched by bench/index.py's helper).

Usage: python3 bench/search.py [--runs N] [--no-build] [--hybrid [--embed-model static|minilm|DIR]]

Indexes Django (code and its reStructuredText docs), then runs 40 queries
(identifiers in three spellings, natural-language phrases, doc topics) N times
each with `evident search --mode bm25 --limit 10`, and reports the query's own
time (EVIDENT_PROFILE=1, ranking plus reading the ten snippets) at p50/p95, the
whole command's time, and the index size. The baseline in the same run is
GNU `grep -r -c -i -E` for the query's words over the same tree: a scan that
finds the files but ranks nothing.

With --hybrid, also `--mode hybrid` with a built-in embedder (the default
static one unless --embed-model says otherwise), over the vectors the index
holds (`evident index` embeds with the default one; `evident embed
--embed-provider local --embed-model minilm` for the other): the query's
embedding time and the search's own time (the vector scan, BM25, fusion,
snippets), and once per command the model's load time, which a long-running
process (chat, MCP) pays once.
"""
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402

QUERIES = [
    "get_object_or_404", "getObjectOr404", "GetObjectOr404", "QuerySet", "query_set", "select_related",
    "selectRelated", "prefetch_related", "ModelAdmin", "model_admin", "csrf_exempt", "CsrfViewMiddleware",
    "reverse_lazy", "ReverseLazy", "slugify", "make_password", "check_password", "get_user_model",
    "password hashing algorithm", "validate email address", "parse http date", "render template to string",
    "database transaction atomic", "cache key versioning", "migration operations rename field",
    "signal sent before model save", "paginate queryset pages", "format number with thousand separator",
    "timezone aware datetime", "url resolver regex pattern", "static files storage manifest",
    "session expiry cookie", "form field validation error", "serialize queryset json",
    "how to write custom management command", "middleware ordering", "writing your first django app",
    "deploy with wsgi", "internationalization translation strings", "testing client requests",
]


def profile(stderr, name):
    m = re.search(rf"profile: {name}: ([0-9.]+) ms", stderr)
    return float(m.group(1)) if m else None


def main():
    args, evident = index_bench.setup(lambda p: (p.add_argument("--hybrid", action="store_true"),
                                                 p.add_argument("--embed-model")), runs=3)
    corpus = index_bench.fetch_corpus()
    subprocess.run([evident, "index", "--quiet", str(corpus)], check=True)
    query_ms, command_ms, rg_ms = [], [], []
    env = dict(os.environ, EVIDENT_PROFILE="1")
    for _ in range(args.runs):
        for q in QUERIES:
            started = time.perf_counter()
            out = subprocess.run([evident, "--repo", str(corpus), "search", q, "--mode", "bm25", "--limit", "10"],
                                 capture_output=True, text=True, env=env)
            command_ms.append((time.perf_counter() - started) * 1e3)
            m = re.search(r"profile: query search: ([0-9.]+) ms", out.stderr)
            if m:
                query_ms.append(float(m.group(1)))
            words = "|".join(re.findall(r"[A-Za-z0-9_]+", q))
            started = time.perf_counter()
            subprocess.run(["grep", "-r", "-c", "-i", "-E", "--exclude-dir=.evident", words, str(corpus)],
                           capture_output=True)
            rg_ms.append((time.perf_counter() - started) * 1e3)

    def pct(xs, p):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(len(xs) * p))]

    size = (corpus / ".evident" / "index.db").stat().st_size / 2**20
    print(f"corpus: Django 5.2.8 sdist (code and docs); {len(QUERIES)} queries x {args.runs} runs; 2 cores")
    print(f"evident search --mode bm25 (query)    p50 {pct(query_ms, .5):7.2f} ms  p95 {pct(query_ms, .95):7.2f} ms")
    print(f"evident search --mode bm25 (command)  p50 {pct(command_ms, .5):7.2f} ms  p95 {pct(command_ms, .95):7.2f} ms")
    print(f"grep -r -c -i -E (unranked scan)      p50 {pct(rg_ms, .5):7.2f} ms  p95 {pct(rg_ms, .95):7.2f} ms")
    print(f"ratio query p50 / grep p50            {pct(query_ms, .5) / pct(rg_ms, .5):.3f}")
    print(f"index size {size:.1f} MiB")
    if args.hybrid:
        hybrid(evident, corpus, args.runs, pct, args.embed_model)


def hybrid(evident, corpus, runs, pct, model):
    env = dict(os.environ, EVIDENT_PROFILE="1")
    embed_ms, search_ms, load_ms = [], [], []
    for _ in range(runs):
        for q in QUERIES:
            chosen = ["--embed-provider", "local", "--embed-model", model] if model else []
            out = subprocess.run([evident, "--repo", str(corpus), "search", q, "--mode", "hybrid", "--limit", "10",
                                  *chosen], capture_output=True, text=True, env=env)
            if "ranks by BM25 only" in out.stderr:
                sys.exit(f"no vectors: {out.stderr.strip()}")
            embed_ms.append(profile(out.stderr, "embed query"))
            search_ms.append(profile(out.stderr, "query search"))
            load_ms.append(profile(out.stderr, "load embedder"))
    total = [a + b for a, b in zip(embed_ms, search_ms)]
    db = str(corpus / ".evident" / "index.db")
    counts = subprocess.run(["sqlite3", db, "SELECT model, count(*) FROM vectors GROUP BY model; SELECT count(*) FROM chunks;"],
                            capture_output=True, text=True).stdout.split()
    print(f"hybrid with the {model or 'default (static)'} embedder; vectors by model and chunks: {' '.join(counts)}")
    print(f"embed query                           p50 {pct(embed_ms, .5):7.2f} ms  p95 {pct(embed_ms, .95):7.2f} ms")
    print(f"hybrid search (query)                 p50 {pct(search_ms, .5):7.2f} ms  p95 {pct(search_ms, .95):7.2f} ms")
    print(f"hybrid, embedding included            p50 {pct(total, .5):7.2f} ms  p95 {pct(total, .95):7.2f} ms")
    print(f"load the model (once per process)     p50 {pct(load_ms, .5):7.2f} ms")
    size = (corpus / ".evident" / "index.db").stat().st_size / 2**20
    print(f"index size with these vectors {size:.1f} MiB")


if __name__ == "__main__":
    main()
