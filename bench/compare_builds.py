#!/usr/bin/env python3
"""Two evident builds on Django, back to back: cold index, the resolve phase,
one-file reindex, definitions, and how the call sites resolve.

Usage: python3 bench/compare_builds.py BEFORE_BINARY [AFTER_BINARY]
(AFTER defaults to target/release/evident; build BEFORE from an older commit,
e.g. `git worktree add /tmp/base REV && cd /tmp/base && cargo build --release`).
Timings on a shared machine drift between sessions; running both builds in one
go makes the ratio fair.
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

corpus = str(index_bench.fetch_corpus())
env = {**os.environ, "EVIDENT_PROFILE": "1"}
before = sys.argv[1]
after = sys.argv[2] if len(sys.argv) > 2 else str(index_bench.ROOT / "target" / "release" / "evident")
for label, binary in [("before", before), ("after", after)]:
    cold, resolve = [], []
    for _ in range(3):
        start = time.perf_counter()
        out = subprocess.run([binary, "index", "--rebuild", "--quiet", "."], cwd=corpus, env=env, check=True, capture_output=True, text=True)
        cold.append(time.perf_counter() - start)
        m = re.search(r"profile: resolve calls: ([0-9.]+) ms", out.stderr)
        resolve.append(float(m.group(1)) if m else float("nan"))
    # one-file reindex
    edited = os.path.join(corpus, "django/db/models/query.py")
    original = open(edited, "rb").read()
    edits = []
    try:
        for i in range(3):
            open(edited, "wb").write(original + f"\n# edit {i}\n".encode())
            start = time.perf_counter()
            subprocess.run([binary, "index", "--quiet", "."], cwd=corpus, env=env, check=True, capture_output=True)
            edits.append(time.perf_counter() - start)
    finally:
        open(edited, "wb").write(original)
        subprocess.run([binary, "index", "--quiet", "."], cwd=corpus, check=True, capture_output=True)
    db = sqlite3.connect(os.path.join(corpus, ".evident/index.db"))
    calls = db.execute("SELECT count(*) FROM calls").fetchone()[0]
    by = dict(db.execute("""SELECT best, count(*) FROM (SELECT c.id, CASE min(CASE g.confidence WHEN 'exact' THEN 0 WHEN 'inferred' THEN 1 WHEN 'name_only' THEN 2 END) WHEN 0 THEN 'exact' WHEN 1 THEN 'inferred' WHEN 2 THEN 'name_only' END AS best FROM calls c JOIN edges g ON g.call_id = c.id GROUP BY c.id) GROUP BY best""").fetchall())
    try:
        by.update(dict(db.execute("SELECT kind, count(*) FROM externals GROUP BY kind").fetchall()))
    except sqlite3.OperationalError:
        pass
    defs = db.execute("SELECT count(*) FROM symbols").fetchone()[0]
    known = sum(by.values())
    shares = ", ".join(f"{k} {100*by.get(k,0)/calls:.1f}%" for k in ["exact", "inferred", "name_only", "external", "builtin"])
    print(f"{label}: cold index median {statistics.median(cold):.2f} s (resolve calls {statistics.median(resolve):.0f} ms); "
          f"one-file reindex median {statistics.median(edits):.2f} s; {defs} definitions; "
          f"{calls} call sites: {shares}, unresolved {100*(calls-known)/calls:.1f}%")
