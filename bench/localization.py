#!/usr/bin/env python3
"""Localization: a commit message as the query, its parent as the tree; where
are the changed files and functions? evident's search against a plain Okapi
BM25 over whole files, re-implemented here, on the same records in one run.

Usage: python3 bench/localization.py [--no-build | --evident PATH] [--all] [--limit N]
       [--mode bm25|hybrid|vector] [--group chunk|file|definition] [--records FILE] [--bundle FILE]
       [--variant 'LABEL=SEARCH OPTIONS' ...]

Variants run more `evident search` configurations on each record's index
(one checkout and one index per record), each reported under its label: the
ablation tables in BENCHMARKS.md come from one run.

Records: `../shared/eval/localization/click.jsonl` (283 commits of click; see
its README). By default only the 224 whose message names no changed function
(`leaks_identifier: false`) count; `--all` takes every record. The records are
split by position into two fixed halves, A (even) and B (odd): tune on A,
report both.

Ranking files: each system's ranked list, reduced to the first appearance of
each `.py` path; test files stay candidates, gold files are never tests.
Functions: evident's definition results in order (qualified names made
relative to their module); the baseline ranks functions and methods (from
Python's `ast`) with the same BM25 over their source.
Metrics: file MRR, Acc@1/5/10 (a gold file among the first k), function
Acc@5 (a gold function among the first 5).

The baseline: whole `.py` files as documents, code-aware tokens (words, their
snake_case and camelCase parts, lowercased), k1 = 1.2, b = 0.75.
"""
import ast
import collections
import json
import math
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, ROOT, WORK)

SHARED = index_bench.ROOT.parent / "shared" / "eval" / "localization"
K1, B = 1.2, 0.75
RESULTS = 100

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text):
    out = []
    for word in WORD.findall(text):
        lower = word.lower()
        out.append(lower)
        parts = [p.lower() for piece in word.split("_") for p in CAMEL.findall(piece)]
        if len(parts) > 1:
            out.extend(p for p in parts if len(p) > 1)
    return out


class BM25:
    def __init__(self, docs):
        """`docs`: (key, text) pairs."""
        self.keys = [k for k, _ in docs]
        self.tfs = [collections.Counter(tokens(t)) for _, t in docs]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.avg = sum(self.lengths) / max(len(self.lengths), 1)
        df = collections.Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def rank(self, query):
        terms = collections.Counter(tokens(query))
        scores = []
        for i, tf in enumerate(self.tfs):
            norm = K1 * (1 - B + B * self.lengths[i] / self.avg)
            s = 0.0
            for t, qtf in terms.items():
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (K1 + 1) / (f + norm)
            if s > 0:
                scores.append((-s, self.keys[i]))
        scores.sort()
        return [k for _, k in scores]


def python_files(tree):
    return sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py") if ".git" not in p.parts and ".evident" not in p.parts)


def functions_of(tree, rel):
    """(qualname, source) of every function and method, `Class.method` style."""
    text = (tree / rel).read_text(errors="replace")
    try:
        module = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    out = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    out.append((name, "\n".join(lines[child.lineno - 1:child.end_lineno])))
                walk(child, f"{name}.")

    walk(module, "")
    return out


def module_of(rel):
    stem = rel[:-3] if rel.endswith(".py") else rel
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


def evident_rank(evident, tree, query, options):
    out = subprocess.run([evident, "search", query, "--json", "--limit", str(RESULTS), *options],
                         cwd=tree, capture_output=True, text=True)
    if out.returncode != 0:
        # A refused query (too long, say) finds nothing: that is what a user gets.
        print(f"  evident refused the query: {out.stderr.strip()}", file=sys.stderr)
        return None, [], []
    hits = json.loads(out.stdout)
    files, functions = [], []
    for h in hits:
        if h["path"].endswith(".py") and h["path"] not in files:
            files.append(h["path"])
        if h["kind"] in ("function", "method"):
            qualified = h.get("qualified_name") or h["name"]
            module = module_of(h["path"])
            local = qualified[len(module) + 1:] if qualified.startswith(module + ".") else h["name"]
            key = (h["path"], local)
            if key not in functions:
                functions.append(key)
    return True, files, functions


def score(files, functions, record):
    gold = set(record["gold_files"])
    gold_functions = {(g["file"], g["qualname"]) for g in record["gold_functions"]}
    rank = next((i + 1 for i, f in enumerate(files) if f in gold), None)
    return {
        "mrr": 1 / rank if rank else 0.0,
        "acc1": float(bool(rank and rank <= 1)),
        "acc5": float(bool(rank and rank <= 5)),
        "acc10": float(bool(rank and rank <= 10)),
        "fn5": float(any(f in gold_functions for f in functions[:5])),
    }


def main():
    args, evident = index_bench.setup(lambda p: (
        p.add_argument("--all", action="store_true", help="count records whose message names a changed function too"),
        p.add_argument("--limit", type=int, help="only the first N records (a quick look)"),
        p.add_argument("--mode", default="hybrid", choices=["bm25", "hybrid", "vector"]),
        p.add_argument("--group", default="chunk", choices=["chunk", "file", "definition"]),
        p.add_argument("--records", default=str(SHARED / "click.jsonl")),
        p.add_argument("--bundle", default=str(SHARED / "click.bundle")),
        p.add_argument("--variant", action="append", default=[], metavar="LABEL=OPTIONS",
                       help="also run `evident search OPTIONS` on the same index, reported as LABEL "
                            "(repeatable; for ablations: 'no calls=--group definition --signal calls=0')"),
    ))
    records = [json.loads(line) for line in open(args.records)]
    records = [r for r in records if args.all or not r["leaks_identifier"]]
    if args.limit:
        records = records[: args.limit]
    repo = index_bench.WORK / "localization" / "click"
    if not repo.exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--no-checkout", args.bundle, str(repo)], check=True)
    variants = [("evident", ["--mode", args.mode, "--group", args.group])]
    for v in args.variant:
        label, _, options = v.partition("=")
        options = options.split()
        for flag, value in [("--mode", args.mode), ("--group", args.group)]:
            if flag not in options:
                options = [flag, value, *options]
        variants.append((label.strip(), options))
    totals = {name: [collections.defaultdict(float), collections.defaultdict(float)]
              for name in [v[0] for v in variants] + ["bm25 baseline"]}
    counts = [0, 0]
    refused = 0
    # An index from another build (another schema) is not this run's.
    shutil.rmtree(repo / ".evident", ignore_errors=True)
    for i, record in enumerate(records):
        half = i % 2
        subprocess.run(["git", "checkout", "-q", "-f", record["base_commit"]], cwd=repo, check=True)
        subprocess.run(["git", "clean", "-q", "-fdx", "-e", ".evident"], cwd=repo, check=True)
        subprocess.run([evident, "index", "--quiet", "."], cwd=repo, check=True, capture_output=True)
        scores = []
        for name, options in variants:
            answered, files, functions = evident_rank(evident, repo, record["query"], options)
            refused += answered is None
            scores.append((name, score(files, functions, record)))
        mine = scores[0][1]
        paths = python_files(repo)
        file_rank = BM25([(p, (repo / p).read_text(errors="replace")) for p in paths]).rank(record["query"])
        fn_docs = [((p, q), src) for p in paths for q, src in functions_of(repo, p)]
        fn_rank = BM25(fn_docs).rank(record["query"])
        base = score(file_rank, fn_rank, record)
        for name, s in scores + [("bm25 baseline", base)]:
            for k, v in s.items():
                totals[name][half][k] += v
        counts[half] += 1
        print(f"{i + 1}/{len(records)} {record['commit'][:8]} evident MRR {mine['mrr']:.2f} baseline {base['mrr']:.2f}",
              file=sys.stderr)
    label = "all records" if args.all else "leaks_identifier: false"
    print(f"click, {len(records)} records ({label}), evident search --mode {args.mode} --group {args.group}; "
          "halves A (even) and B (odd)")
    if refused:
        print(f"evident refused {refused} of the queries (each scored as finding nothing)")
    for name, options in variants[1:]:
        print(f"{name}: evident search {' '.join(options)}")
    width = max(16, *(len(name) + 2 for name in totals))
    print(f"{'system':<{width}}{'half':<6}{'n':>5}{'file MRR':>10}{'Acc@1':>8}{'Acc@5':>8}{'Acc@10':>8}{'fn Acc@5':>10}")
    for name, halves in totals.items():
        rows = [("A", halves[0], counts[0]), ("B", halves[1], counts[1]),
                ("all", {k: halves[0][k] + halves[1][k] for k in halves[0]}, sum(counts))]
        for half, t, n in rows:
            if not n:
                continue
            print(f"{name:<16}{half:<6}{n:>5}{t['mrr'] / n:>10.3f}{t['acc1'] / n:>8.3f}{t['acc5'] / n:>8.3f}"
                  f"{t['acc10'] / n:>8.3f}{t['fn5'] / n:>10.3f}")


if __name__ == "__main__":
    main()
