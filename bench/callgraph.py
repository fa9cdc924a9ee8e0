#!/usr/bin/env python3
"""Call-graph benchmark on the Django 5.2.8 sdist (fetched by bench/index.py's helper).

Usage: python3 bench/callgraph.py [--runs N] [--no-build]

Measures, in one run:
  - the share of a cold `evident index` spent resolving all calls,
  - `evident impact SYMBOL --max-depth 5` and `evident callers SYMBOL` on the
    definition with the most resolved callers (the query's own time, as the
    command prints it with EVIDENT_PROFILE=1),
  - the same reverse BFS written naively in Python over the same SQLite file
    (the baseline), and the ratio,
and prints how Django's call sites resolve (exact / inferred / name_only /
external / builtin / unresolved).
"""
import os
import pathlib
import re
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (fetch_corpus, ROOT)

ROOT = index_bench.ROOT


def profile_value(stderr, label):
    match = re.search(rf"profile: {re.escape(label)}: ([0-9.]+) ms", stderr)
    return float(match.group(1)) if match else None


def naive_impact(db, target_id, depth):
    """Reverse BFS with one SQL query per visited definition."""
    seen, frontier = {target_id}, [target_id]
    for _ in range(depth):
        nxt = []
        for callee in frontier:
            for (enclosing,) in db.execute(
                "SELECT c.enclosing_id FROM edges g JOIN calls c ON c.id = g.call_id WHERE g.callee_id = ?",
                (callee,),
            ):
                if enclosing is not None and enclosing not in seen:
                    seen.add(enclosing)
                    nxt.append(enclosing)
        frontier = nxt
    return len(seen) - 1


def main():
    args, evident = index_bench.setup()
    corpus = index_bench.fetch_corpus()
    env = {**os.environ, "EVIDENT_PROFILE": "1"}

    resolve, cold = [], []
    for _ in range(args.runs):
        index_bench.empty_parse_cache()
        start = time.perf_counter()
        out = subprocess.run([evident, "index", "--rebuild", "--quiet", "."], cwd=corpus, env=env,
                             check=True, capture_output=True, text=True)
        cold.append(time.perf_counter() - start)
        resolve.append(profile_value(out.stderr, "resolve calls"))

    db = sqlite3.connect(corpus / ".evident" / "index.db")
    target_id, qualified, fan_in = db.execute(
        """SELECT s.id, s.qualified_name, count(*) FROM edges g JOIN symbols s ON s.id = g.callee_id
           GROUP BY s.id ORDER BY count(*) DESC LIMIT 1"""
    ).fetchone()
    impact, callers, naive = [], [], []
    for _ in range(args.runs):
        out = subprocess.run([evident, "impact", qualified, "--max-depth", "5", "--json"], cwd=corpus, env=env,
                             check=True, capture_output=True, text=True)
        impact.append(profile_value(out.stderr, "query impact"))
        out = subprocess.run([evident, "callers", qualified, "--json"], cwd=corpus, env=env,
                             check=True, capture_output=True, text=True)
        callers.append(profile_value(out.stderr, "query callers"))
        start = time.perf_counter()
        affected = naive_impact(db, target_id, 5)
        naive.append((time.perf_counter() - start) * 1000)

    calls = db.execute("SELECT count(*) FROM calls").fetchone()[0]
    by_best = dict(db.execute(
        """SELECT best, count(*) FROM (
             SELECT c.id, CASE min(CASE g.confidence WHEN 'exact' THEN 0 WHEN 'inferred' THEN 1
                                    WHEN 'name_only' THEN 2 END)
                          WHEN 0 THEN 'exact' WHEN 1 THEN 'inferred' WHEN 2 THEN 'name_only' END AS best
             FROM calls c JOIN edges g ON g.call_id = c.id GROUP BY c.id) GROUP BY best"""
    ).fetchall())
    resolved = sum(by_best.values())
    outside = dict(db.execute("SELECT kind, count(*) FROM externals GROUP BY kind").fetchall())
    resolved += sum(outside.values())
    med = statistics.median
    print(f"corpus: Django {index_bench.VERSION} sdist; {args.runs} runs each")
    print(f"cold index                       median {med(cold):6.3f} s, of which resolving all calls {med(resolve):7.1f} ms")
    print(f"most-called definition           {qualified} ({fan_in} call sites)")
    print(f"evident impact --max-depth 5     median {med(impact):7.2f} ms")
    print(f"evident callers                  median {med(callers):7.2f} ms")
    print(f"naive Python BFS, depth 5        median {med(naive):7.2f} ms ({affected} definitions)")
    print(f"ratio impact evident/naive       {med(impact) / med(naive):.2f}x")
    print(f"call sites: {calls}; exact {by_best.get('exact', 0)} ({100 * by_best.get('exact', 0) / calls:.1f}%), "
          f"inferred {by_best.get('inferred', 0)} ({100 * by_best.get('inferred', 0) / calls:.1f}%), "
          f"name_only {by_best.get('name_only', 0)} ({100 * by_best.get('name_only', 0) / calls:.1f}%), "
          f"external {outside.get('external', 0)} ({100 * outside.get('external', 0) / calls:.1f}%), "
          f"builtin {outside.get('builtin', 0)} ({100 * outside.get('builtin', 0) / calls:.1f}%), "
          f"unresolved {calls - resolved} ({100 * (calls - resolved) / calls:.1f}%)")


if __name__ == "__main__":
    main()
