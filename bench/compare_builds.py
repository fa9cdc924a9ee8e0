#!/usr/bin/env python3
"""Two evident builds on Django, back to back: cold index, the resolve phase,
one-file reindex, definitions, and how the call sites resolve.

Usage: python3 bench/compare_builds.py BEFORE_BINARY [AFTER_BINARY]
(AFTER defaults to target/release/evident; build BEFORE from an older commit,
e.g. `git worktree add /tmp/base REV && cd /tmp/base && cargo build --release`).
Timings on a shared machine drift between sessions and within one; running
both builds in one go makes the ratio fair, and each build runs on its own copy
of the corpus, the two alternately (5 cold indexes, then 9 one-file edits
each), so that a slow spell hits both.
"""
import os
import pathlib
import re
import shutil
import sqlite3
import tempfile
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (fetch_corpus, ROOT)

corpus = str(index_bench.fetch_corpus())
env = {**os.environ, "EVIDENT_PROFILE": "1"}
builds = {
    "before": os.path.abspath(sys.argv[1]),
    "after": os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else str(index_bench.ROOT / "target" / "release" / "evident"),
}
EDITED = "django/db/models/query.py"
COLD_ROUNDS, EDIT_ROUNDS = 5, 9


def run(binary, copy, *args):
    start = time.perf_counter()
    out = subprocess.run([binary, "index", "--quiet", *args, "."], cwd=copy, env=env, check=True,
                         capture_output=True, text=True)
    return time.perf_counter() - start, out.stderr


def shares(copy):
    db = sqlite3.connect(os.path.join(copy, ".evident/index.db"))
    calls = db.execute("SELECT count(*) FROM calls").fetchone()[0]
    by = dict(db.execute("""SELECT best, count(*) FROM (SELECT c.id, CASE min(CASE g.confidence WHEN 'exact' THEN 0 WHEN 'inferred' THEN 1 WHEN 'name_only' THEN 2 END) WHEN 0 THEN 'exact' WHEN 1 THEN 'inferred' WHEN 2 THEN 'name_only' END AS best FROM calls c JOIN edges g ON g.call_id = c.id GROUP BY c.id) GROUP BY best""").fetchall())
    try:
        by.update(dict(db.execute("SELECT kind, count(*) FROM externals GROUP BY kind").fetchall()))
    except sqlite3.OperationalError:
        pass
    defs = db.execute("SELECT count(*) FROM symbols").fetchone()[0]
    db.close()
    known = sum(by.values())
    text = ", ".join(f"{k} {100*by.get(k,0)/calls:.1f}%" for k in ["exact", "inferred", "name_only", "external", "builtin"])
    return f"{defs} definitions; {calls} call sites: {text}, unresolved {100*(calls-known)/calls:.1f}%"


with tempfile.TemporaryDirectory() as tmp:
    copies = {}
    for label in builds:
        copy = os.path.join(tmp, label)
        shutil.copytree(corpus, copy, ignore=shutil.ignore_patterns(".evident"))
        copies[label] = copy
    cold = {label: [] for label in builds}
    resolve = {label: [] for label in builds}
    for _ in range(COLD_ROUNDS):
        for label, binary in builds.items():
            index_bench.empty_parse_cache()
            seconds, stderr = run(binary, copies[label], "--rebuild")
            cold[label].append(seconds)
            m = re.search(r"profile: resolve calls: ([0-9.]+) ms", stderr)
            resolve[label].append(float(m.group(1)) if m else float("nan"))
    for label in builds:
        print(f"{label}: cold index median {statistics.median(cold[label]):.2f} s "
              f"(resolve calls {statistics.median(resolve[label]):.0f} ms); {shares(copies[label])}")
    print(f"cold index ratio {statistics.median(cold['after']) / statistics.median(cold['before']):.2f}")
    originals = {label: open(os.path.join(copies[label], EDITED), "rb").read() for label in builds}
    edits = {label: [] for label in builds}
    for i in range(EDIT_ROUNDS):
        for label, binary in builds.items():
            with open(os.path.join(copies[label], EDITED), "wb") as f:
                f.write(originals[label] + f"\n# edit {i}\n".encode())
            edits[label].append(run(binary, copies[label])[0])
    b, a = statistics.median(edits["before"]), statistics.median(edits["after"])
    print(f"one-file reindex ({EDITED}, {EDIT_ROUNDS} alternating edits): before median {b:.3f} s, "
          f"after median {a:.3f} s, ratio {a / b:.2f}")
