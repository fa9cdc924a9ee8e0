#!/usr/bin/env python3
"""Retrieval quality of `evident search`: bm25, vector, hybrid (and rerank on a subset).

Usage: python3 bench/quality.py [--no-build] [--queries N] [--embed-model static|minilm]
       [--group chunk|definition|file] [--rerank N] [--threads T]

Corpus: the boltons 25.0.0 sdist from PyPI (pure-Python utilities with
docstrings). Queries: the first sentence of each public function's or class's
docstring (at least five words), and the answer is that definition. Every
docstring is stripped from the indexed copy (each replaced by `pass`, line
numbers kept), so no query text is in the index: the query must be matched
through names, code and comments. Vectors come from a built-in embedder: the
default static table, or all-MiniLM-L6-v2 with `--embed-model minilm` (both
from scripts/fetch-embed-model.sh). Results are ranked by `--group` (chunk by
default: the unit of the earlier figures; the answer is a definition either
way, found when its name and line are in a result). Reports MRR@10 and
Recall@1/5/10 per mode; with --rerank N, the first N queries are also run with
`--rerank` against the real Qwen2.5-Coder-1.5B on llama-server
(scripts/provision-llm.sh), next to hybrid on the same N queries.
"""
import ast
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402
import llm as llm_bench  # noqa: E402

ROOT = index_bench.ROOT
WORK = index_bench.WORK
PACKAGE, VERSION = "boltons", "25.0.0"


def fetch_sdist() -> pathlib.Path:
    src = WORK / f"{PACKAGE}-{VERSION}"
    if not src.is_dir():
        WORK.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        f"{PACKAGE}=={VERSION}", "-d", str(WORK)], check=True)
        with tarfile.open(next(WORK.glob(f"{PACKAGE}-{VERSION}.tar.gz"))) as tar:
            tar.extractall(WORK, filter="data")
    return src


def first_sentence(doc: str) -> str:
    paragraph = doc.strip().split("\n\n")[0].replace("\n", " ")
    sentence = re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]
    return " ".join(sentence.split())[:200]


def strip_docstrings(source: str):
    """The source with every docstring replaced by `pass` (line numbers kept),
    and the (name, line, first sentence) of each public documented definition."""
    tree = ast.parse(source)
    lines = source.split("\n")
    targets = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        body = node.body
        if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            continue
        doc = body[0]
        if not isinstance(node, ast.Module) and doc.lineno == node.lineno:
            continue  # a one-line `def f(): "doc"` would need rewriting the def itself
        indent = re.match(r"\s*", lines[doc.lineno - 1]).group(0)
        for i in range(doc.lineno - 1, doc.end_lineno):
            lines[i] = ""
        lines[doc.lineno - 1] = indent + "pass"
        if isinstance(node, ast.Module) or node.name.startswith("_"):
            continue
        sentence = first_sentence(ast.get_docstring(node) or "")
        if len(sentence.split()) >= 5:
            targets.append((node.name, node.lineno, sentence))
    return "\n".join(lines), targets


def build_corpus(src: pathlib.Path, embed_model: str) -> tuple[pathlib.Path, list]:
    corpus = WORK / f"quality-{PACKAGE}"
    shutil.rmtree(corpus, ignore_errors=True)
    queries = []
    for path in sorted((src / PACKAGE).rglob("*.py")):
        rel = path.relative_to(src)
        stripped, targets = strip_docstrings(path.read_text())
        out = corpus / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(stripped)
        queries += [{"query": q, "path": str(rel), "name": n, "line": line} for n, line, q in targets]
    (corpus / "evident.toml").write_text(f"[embed]\nprovider = \"local\"\nname = \"{embed_model}\"\n")
    return corpus, queries


GROUP = "chunk"


def search(evident, corpus, q, mode, extra=()):
    out = subprocess.run([evident, "--repo", str(corpus), "search", q["query"], "--mode", mode, "--limit", "10",
                          "--group", GROUP, "--json", *extra], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"search failed: {out.stderr}")
    if "rerank skipped" in out.stderr:
        print(f"  note: {out.stderr.strip()}", file=sys.stderr)
    results = json.loads(out.stdout) if out.returncode == 0 else []
    for rank, r in enumerate(results, 1):
        if r["path"] == q["path"] and r["name"] == q["name"] and r["start_line"] <= q["line"] <= r["end_line"]:
            return rank
    return None


def report(name, ranks):
    n = len(ranks)
    mrr = sum(1 / r for r in ranks if r) / n
    recall = {k: sum(1 for r in ranks if r and r <= k) / n for k in (1, 5, 10)}
    print(f"{name:22} {n:4}  {mrr:7.3f}  {recall[1]:7.3f}  {recall[5]:7.3f}  {recall[10]:7.3f}")


def main():
    def configure(p):
        p.add_argument("--queries", type=int, default=150)
        p.add_argument("--rerank", type=int, default=0, help="also rerank the first N queries with the real model")
        p.add_argument("--threads", type=int, default=2)
        p.add_argument("--embed-model", default="static", choices=["static", "minilm"])
        p.add_argument("--group", default="chunk", choices=["chunk", "definition", "file"])
    args, evident = index_bench.setup(configure, runs=1)
    global GROUP
    GROUP = args.group
    src = fetch_sdist()
    corpus, queries = build_corpus(src, args.embed_model)
    # An even spread over the package, the same every run.
    stride = max(1, len(queries) / args.queries)
    queries = [queries[int(i * stride)] for i in range(min(args.queries, len(queries)))]
    subprocess.run([str(ROOT / "scripts" / "fetch-embed-model.sh")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([evident, "index", "--quiet", "--no-embed", str(corpus)], check=True)
    started = time.perf_counter()
    subprocess.run([evident, "--repo", str(corpus), "embed", "--quiet"], check=True)
    embed_s = time.perf_counter() - started
    chunks = json.loads(subprocess.run([evident, "--repo", str(corpus), "embed", "--json"], check=True,
                                       capture_output=True, text=True).stdout)["with_vectors"]
    embedder = "the default static table" if args.embed_model == "static" else "all-MiniLM-L6-v2"
    print(f"corpus: {PACKAGE} {VERSION} sdist, docstrings stripped; {len(queries)} queries "
          f"(docstring first sentences); {chunks} chunks embedded in {embed_s:.1f} s with {embedder} (built-in); "
          f"--group {GROUP}")
    print(f"{'mode':22} {'n':>4}  {'MRR@10':>7}  {'R@1':>7}  {'R@5':>7}  {'R@10':>7}")
    ranks = {}
    for mode in ("bm25", "vector", "hybrid"):
        ranks[mode] = [search(evident, corpus, q, mode) for q in queries]
        report(mode, ranks[mode])
    if args.rerank:
        cache = pathlib.Path(subprocess.run([str(ROOT / "scripts" / "provision-llm.sh")], check=True,
                                            capture_output=True, text=True).stdout.strip())
        server, base = llm_bench.start_server(cache, llm_bench.MODELS[0][1], args.threads)
        try:
            subset = queries[:args.rerank]
            started = time.perf_counter()
            reranked = [search(evident, corpus, q, "hybrid",
                               ["--rerank", "--rerank-budget", "120", "--provider", "openai", "--base-url", base,
                                "--model", "qwen2.5-coder-1.5b"]) for q in subset]
            per_query = (time.perf_counter() - started) / len(subset)
        finally:
            server.kill()
        report(f"hybrid (first {len(subset)})", ranks["hybrid"][:len(subset)])
        report("hybrid + rerank 1.5B", reranked)
        print(f"rerank: {per_query:.1f} s per query (top 20 scored by Qwen2.5-Coder-1.5B Q4_K_M, llama-server, "
              f"{args.threads} threads)")


if __name__ == "__main__":
    main()
