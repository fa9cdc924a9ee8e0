#!/usr/bin/env python3
"""The resident process (`evident daemon`) beside one-shot commands, in the
same run, on Django 5.2.8 and (with --kernel) the Linux tree of bench/kernel.py.

Usage: python3 bench/daemon.py [--runs N] [--no-build | --evident PATH] [--kernel] [--no-django]

Queries, as whole processes (what a user or a script waits for), N runs each,
medians: `--no-daemon` (the one-shot baseline) against the same command
answered by the daemon. The symbols: the definition with the most resolved
callers (found with sqlite3 in the index, not with evident), and fixed names.

The kernel edit (with --kernel): one statement added to the body of
`arch_slab_minalign()` in include/linux/slab.h, which thousands of files
include; one-shot `evident index --no-embed` against the daemon (started
with --no-embed) until `outline` of the header through it answers.

Edits (Django), the kinds of bench/edits.py on its modules: the baseline is
the one-shot `evident index` after the edit (what edits.py times). With the
daemon running, the time from the file's write until a query shows the edit:
the file is written, and after 20 ms (the watcher's event) `evident outline
MODULE --json` runs through the daemon, which brings the index up to date
first; the answer is checked against the edit (with Python's `ast`). The
daemon's own time for the index run is read from its log.
"""
import ast
import json
import pathlib
import re
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, fetch_corpus)
import edits as edits_bench  # noqa: E402  (MODULES, KINDS, edited)

KERNEL = index_bench.WORK / "kernel" / "linux-6.1.192-3"


def run(cmd, cwd, check=True):
    return subprocess.run(cmd, cwd=cwd, check=check, capture_output=True, text=True)


def wall(cmd, cwd):
    started = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - started, out


def most_called(corpus):
    db = sqlite3.connect(corpus / ".evident" / "index.db")
    return db.execute(
        """SELECT s.qualified_name FROM edges g JOIN symbols s ON s.id = g.callee_id
           GROUP BY s.id ORDER BY count(*) DESC LIMIT 1""").fetchone()[0]


def queries(evident, corpus, commands, runs):
    """Per command: one-shot and daemon medians (ms), and that both printed the same."""
    rows = []
    for args in commands:
        one_shot, resident, same = [], [], True
        for _ in range(runs):
            seconds, a = wall([evident, "--no-daemon", *args], corpus)
            one_shot.append(seconds * 1000)
            seconds, b = wall([evident, *args], corpus)
            resident.append(seconds * 1000)
            same &= (settled(a.stdout), a.returncode) == (settled(b.stdout), b.returncode)
        rows.append((" ".join(args), statistics.median(one_shot), statistics.median(resident), same))
    return rows


def settled(stdout):
    """The output less the age `status` prints ("(3 s ago)"), which two
    runs a second apart read differently."""
    return re.sub(r"\(\d+ (s|min|h|days) ago\)", "(ago)", stdout)


def print_queries(title, rows):
    print(f"\n{title}: whole commands, medians in ms")
    print(f"{'command':60} {'one-shot':>9} {'daemon':>8} {'ratio':>6}  same output")
    for name, one_shot, resident, same in rows:
        print(f"{name[:60]:60} {one_shot:9.1f} {resident:8.1f} {one_shot / resident:6.1f}  {same}")


def daemon_log_times(corpus):
    log = (corpus / ".evident" / "daemon.log").read_text()
    return [float(m) for m in re.findall(r"index brought up to date in ([0-9.]+) ms", log)]


def names_in_outline(evident, corpus, module):
    out = run([evident, "--json", "outline", module], corpus, check=False)
    return {r["name"] for r in json.loads(out.stdout or "[]")}


def expected_change(original, text):
    """Top-level names the edit adds and removes (by `ast`)."""
    def names(source):
        return {n.name for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return names(text) - names(original), names(original) - names(text)


def edit_runs(evident, corpus, runs, resident):
    """Each module and kind, `runs` times: the edit's time, one-shot (`evident
    index`) or resident (until `outline` through the daemon shows it)."""
    times = {}
    for module in edits_bench.MODULES:
        path = corpus / module
        original = path.read_text()
        try:
            for kind in edits_bench.KINDS:
                text = edits_bench.edited(original, kind)
                added, removed = expected_change(original, text)
                for _ in range(runs):
                    logged = len(daemon_log_times(corpus)) if resident else 0
                    path.write_text(text)
                    if not resident:
                        seconds, _ = wall([evident, "index", "--quiet"], corpus)
                        times.setdefault((kind, "one-shot"), []).append(seconds * 1000)
                        path.write_text(original)
                        run([evident, "index", "--quiet"], corpus)
                        continue
                    time.sleep(0.02)
                    seconds, out = wall([evident, "--json", "outline", module], corpus)
                    shown = {r["name"] for r in json.loads(out.stdout or "[]")}
                    if not added <= shown or removed & shown:
                        sys.exit(f"the daemon's answer misses the {kind} edit of {module}")
                    times.setdefault((kind, "daemon"), []).append(seconds * 1000)
                    times.setdefault((kind, "daemon's index run"), []).extend(daemon_log_times(corpus)[logged:])
                    path.write_text(original)
                    time.sleep(0.02)
                    run([evident, "outline", module], corpus, check=False)
        finally:
            path.write_text(original)
    return times


def edits(evident, corpus, runs):
    """One-shot runs with no daemon, then resident runs with one daemon
    started before them (and warmed by one edit, not counted)."""
    run([evident, "daemon", "stop"], corpus, check=False)
    times = edit_runs(evident, corpus, runs, resident=False)
    run([evident, "daemon", "start"], corpus)
    try:
        edit_runs(evident, corpus, 1, resident=True)
        times.update(edit_runs(evident, corpus, runs, resident=True))
    finally:
        run([evident, "daemon", "stop"], corpus, check=False)
        run([evident, "index", "--quiet"], corpus)
    med = statistics.median
    print("\nDjango edits, medians in ms over the four modules of bench/edits.py")
    print(f"{'':40}" + "".join(f"{k:>9}" for k in edits_bench.KINDS))
    for what in ["one-shot", "daemon", "daemon's index run"]:
        print(f"{what:40}" + "".join(f"{med(times.get((k, what), [0])):9.0f}" for k in edits_bench.KINDS))
    print("(one-shot: `evident index` after the edit; daemon: the edit until `outline` through the daemon shows it)")


# The kernel edit: one statement added to the body of a static inline
# function of a header many files include (found by its text, not by evident).
KERNEL_HEADER = "include/linux/slab.h"
KERNEL_BODY = "static inline unsigned int arch_slab_minalign(void)\n{\n"


def kernel_edit(evident, runs):
    """The header body edit: one-shot `evident index --no-embed`, then the
    daemon (started with --no-embed) until `outline` through it answers."""
    path = KERNEL / KERNEL_HEADER
    original = path.read_text()
    if KERNEL_BODY not in original:
        sys.exit(f"{KERNEL_HEADER} has no {KERNEL_BODY!r}")
    text = original.replace(KERNEL_BODY, KERNEL_BODY + "\tbarrier();\n", 1)
    times = {"one-shot": [], "daemon": [], "daemon's index run": []}
    try:
        run([evident, "daemon", "stop"], KERNEL, check=False)
        for _ in range(runs):
            path.write_text(text)
            times["one-shot"].append(wall([evident, "index", "--quiet", "--no-embed"], KERNEL)[0] * 1000)
            path.write_text(original)
            run([evident, "index", "--quiet", "--no-embed"], KERNEL)
        run([evident, "daemon", "start", "--no-embed"], KERNEL)
        for _ in range(runs):
            logged = len(daemon_log_times(KERNEL))
            path.write_text(text)
            time.sleep(0.02)
            times["daemon"].append(wall([evident, "outline", KERNEL_HEADER], KERNEL)[0] * 1000)
            times["daemon's index run"].extend(daemon_log_times(KERNEL)[logged:])
            path.write_text(original)
            time.sleep(0.02)
            run([evident, "outline", KERNEL_HEADER], KERNEL, check=False)
    finally:
        path.write_text(original)
        run([evident, "daemon", "stop"], KERNEL, check=False)
        run([evident, "index", "--quiet", "--no-embed"], KERNEL)
    print(f"\nkernel: a body edit of {KERNEL_HEADER}, medians in ms")
    for what, values in times.items():
        print(f"{what:40}{statistics.median(values):9.0f}")


def main():
    def configure(parser):
        parser.add_argument("--kernel", action="store_true", help="also the Linux tree of bench/kernel.py")
        parser.add_argument("--no-django", action="store_true")

    args, evident = index_bench.setup(configure, runs=5)
    print(f"{evident}; {args.runs} runs each")
    if not args.no_django:
        corpus = index_bench.fetch_corpus()
        run([evident, "daemon", "stop"], corpus, check=False)
        run([evident, "index", "--quiet"], corpus)
        top = most_called(corpus)
        commands = [
            ["callers", top],
            ["impact", top, "--max-depth", "5"],
            ["callers", "django.utils.text.slugify"],
            ["impact", "django.utils.text.slugify"],
            ["symbol", "QuerySet"],
            ["def", "django/db/models/query.py:300:20"],
            ["search", "--mode", "bm25", "slugify unicode"],
            ["status"],
        ]
        started = time.perf_counter()
        run([evident, "daemon", "start"], corpus)
        print(f"Django: `daemon start` took {time.perf_counter() - started:.2f} s")
        try:
            print_queries(f"Django {index_bench.VERSION}", queries(evident, corpus, commands, args.runs))
        finally:
            run([evident, "daemon", "stop"], corpus, check=False)
        edits(evident, corpus, max(1, args.runs // 2))
    if args.kernel:
        run([evident, "daemon", "stop"], KERNEL, check=False)
        commands = [
            ["callers", "kfree"],
            ["callers", "ARRAY_SIZE"],
            ["impact", "kfree", "--max-depth", "3"],
            ["symbol", "kmalloc"],
        ]
        started = time.perf_counter()
        run([evident, "daemon", "start"], KERNEL)
        print(f"\nkernel: `daemon start` took {time.perf_counter() - started:.2f} s")
        try:
            print_queries("Linux 6.1 (bench/kernel.py's tree)", queries(evident, KERNEL, commands, args.runs))
        finally:
            run([evident, "daemon", "stop"], KERNEL, check=False)
        kernel_edit(evident, args.runs)


if __name__ == "__main__":
    main()
