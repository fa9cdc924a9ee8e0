#!/usr/bin/env python3
"""Crash consistency: `evident index` killed with SIGKILL at random moments.

Usage: python3 bench/crash.py [--runs TRIALS] [--seed N] [--no-build]

Copies the Django 5.2.8 sdist (fetched from PyPI by bench/index.py) to
bench/.work/crash/, makes it a git repository with two branches: `a`, the
tree as released, and `b`, the tree with 120 files edited, 20 added and 10
deleted. Builds evident and the dump tool (crates/evident/examples/index_dump.rs)
in release mode, and records the two reference indexes from clean builds.
Then each trial:

  1. starts an indexing run of one of four kinds, in turn:
       cold         no index at all (`evident index`),
       switch       the index is complete for one branch and the other is
                    checked out (`git checkout`),
       rebuild      `evident index --rebuild` over a complete index,
       worktree     a second worktree (bench/.work/crash/worktree), at the
                    branch the first is not on, indexed from nothing: the run
                    starts by copying the first worktree's index;
  2. kills it with SIGKILL after a random delay, uniform between 0 and 1.1 x
     that kind's clean duration (so some kills land after the run is over);
  3. checks that `evident status` and four queries (symbol, search, callers,
     importers) answer without an error (exit 0 or 1; before the first
     commit of a cold run, status must say plainly that there is no index);
  4. runs `evident index` to the end and compares the index, dumped as
     canonical text (row ids replaced by what they point at; SQLite's
     integrity check, row-to-file checks and the full-text row count
     first), with the reference of the tree's state.

Then, queries while indexing: two workers loop status and the four queries
while a cold run, a branch switch and a `--rebuild` finish (twice each), and
every answer that is an error is counted. During a rebuild the old index is
complete, so an answer saying there is no index, or that the last run did
not finish, is an error too (the rebuild writes a side file and swaps it in).

Prints a table per kind: trials, kills that landed mid-run, status and
query failures, resumed indexes that differ from a clean build; exits 1 if
any check failed. Failing dumps are kept under bench/.work/crash/failures/.
"""
import os
import pathlib
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402

WORK = index_bench.WORK / "crash"
EDITED, ADDED, DELETED = 120, 20, 10
QUERIES = [
    ["symbol", "QuerySet"],
    ["search", "queryset filter", "--mode", "bm25"],
    ["callers", "get_object_or_404"],
    ["importers", "django.shortcuts"],
]


def git(root, *args):
    subprocess.run(["git", "-c", "user.name=crash", "-c", "user.email=crash@localhost", *args],
                   cwd=root, check=True, capture_output=True)


class Tree:
    """The corpus copy as a git repository: branch `a` (state A, as released)
    and branch `b` (state B), one checked out; and a second worktree."""

    def __init__(self, corpus, seed):
        self.root = WORK / "django"
        self.worktree = WORK / "worktree"
        for path in (self.root, self.worktree):
            if path.exists():
                shutil.rmtree(path)
        shutil.copytree(corpus, self.root, ignore=shutil.ignore_patterns(".evident"))
        files = sorted(p for p in self.root.rglob("*.py"))
        chosen = random.Random(seed).sample(files, EDITED + DELETED)
        git(self.root, "init", "-q", "-b", "a")
        (self.root / ".git" / "info").mkdir(parents=True, exist_ok=True)
        (self.root / ".git" / "info" / "exclude").write_text(".evident/\n")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", "A")
        git(self.root, "checkout", "-q", "-b", "b")
        for i, path in enumerate(chosen[:EDITED]):
            path.write_bytes(path.read_bytes()
                             + f"\n\ndef crash_probe_{i}(request):\n    return get_object_or_404(request)\n".encode())
        for path in chosen[EDITED:]:
            path.unlink()
        probes = self.root / "django" / "crash_probe"
        probes.mkdir()
        for i in range(ADDED):
            (probes / f"probe_{i}.py").write_text(
                f"from django.shortcuts import get_object_or_404\n\n\n"
                f"class Probe{i}:\n    def run(self, q):\n        return get_object_or_404(q)\n")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", "B")
        git(self.root, "checkout", "-q", "a")
        git(self.root, "worktree", "add", "-q", "--detach", str(self.worktree), "b")
        self.state = "A"
        self.worktree_state = "B"

    def switch(self, state):
        if state != self.state:
            git(self.root, "checkout", "-q", "a" if state == "A" else "b")
            self.state = state

    def switch_worktree(self, state):
        """Puts the second worktree at `state`, with no index."""
        shutil.rmtree(self.worktree / ".evident", ignore_errors=True)
        if state != self.worktree_state:
            git(self.worktree, "checkout", "-q", "--detach", "a" if state == "A" else "b")
            self.worktree_state = state


def run(evident, root, *args, timeout=600):
    return subprocess.run([evident, "--repo", str(root), *args], capture_output=True, text=True, timeout=timeout)


def index(evident, root, *extra):
    started = time.perf_counter()
    out = subprocess.run([evident, "index", "--quiet", *extra, str(root)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"evident index {' '.join(extra)} failed: {out.stderr}")
    return time.perf_counter() - started


def dump(dumper, root):
    out = subprocess.run([dumper, str(root)], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def query_failures(evident, root, had_index=False):
    """What `evident status` and the queries say that is an error, if anything."""
    failures = []
    status = run(evident, root, "status")
    db = root / ".evident" / "index.db"
    if status.returncode != 0:
        # Killed before the first commit: there is no index yet, and status
        # must say so plainly (never after a rebuild: the old index stays).
        if had_index or "no index at" not in status.stderr:
            failures.append(f"status exit {status.returncode}: {status.stderr.strip()}")
        return failures
    for args in QUERIES:
        out = run(evident, root, *args)
        if out.returncode not in (0, 1):
            failures.append(f"{' '.join(args)} exit {out.returncode}: {out.stderr.strip()}")
    if not db.exists():
        failures.append("status succeeded with no index file")
    return failures


def trial(evident, dumper, tree, references, kind, duration, rng, failures_dir, number):
    root, state = tree.root, None
    if kind == "cold":
        # The worktree's index too: a run without an index would start from it.
        shutil.rmtree(root / ".evident", ignore_errors=True)
        shutil.rmtree(tree.worktree / ".evident", ignore_errors=True)
        args = []
    elif kind == "switch":
        tree.switch("B" if tree.state == "A" else "A")
        args = []
    elif kind == "worktree":
        # The first worktree's index is complete (every trial resumes it).
        state = "B" if tree.state == "A" else "A"
        tree.switch_worktree(state)
        root = tree.worktree
        args = []
    else:
        args = ["--rebuild"]
    state = state or tree.state
    delay = rng.uniform(0, 1.1 * duration)
    child = subprocess.Popen([evident, "index", "--quiet", *args, str(root)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    mid_run = child.poll() is None
    if mid_run:
        child.send_signal(signal.SIGKILL)
    child.wait()
    child.stderr.close()
    problems = query_failures(evident, root, had_index=kind == "rebuild")
    resumed = subprocess.run([evident, "index", "--quiet", str(root)], capture_output=True, text=True)
    if resumed.returncode != 0:
        problems.append(f"resuming index failed: {resumed.stderr.strip()}")
    code, text, err = dump(dumper, root)
    differs = code != 0 or text != references[state]
    if code != 0:
        problems.append(f"dump: {err.strip()}")
    elif differs:
        failures_dir.mkdir(parents=True, exist_ok=True)
        (failures_dir / f"trial{number}-{kind}-{state}.dump").write_text(text)
        problems.append(f"resumed index differs from a clean build of state {state}")
    return {"kind": kind, "mid_run": mid_run, "delay": delay, "problems": problems, "differs": differs}


def queries_while_indexing(evident, tree, kind):
    """Runs the queries in a loop on 2 workers while an indexing run of `kind` finishes."""
    root = tree.root
    args = []
    if kind == "cold":
        shutil.rmtree(root / ".evident", ignore_errors=True)
        shutil.rmtree(tree.worktree / ".evident", ignore_errors=True)
    elif kind == "rebuild":
        args = ["--rebuild"]
    else:
        tree.switch("B" if tree.state == "A" else "A")
    child = subprocess.Popen([evident, "index", "--quiet", *args, str(root)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    counts = {"queries": 0, "errors": 0, "no_index_yet": 0}
    lock = threading.Lock()
    samples = []

    def worker(offset):
        i = offset
        while child.poll() is None:
            args = (QUERIES + [["status"]])[i % (len(QUERIES) + 1)]
            out = run(evident, root, *args)
            with lock:
                counts["queries"] += 1
                half_built = kind == "rebuild" and (
                    "no index at" in out.stderr or "did not finish" in out.stderr)
                if half_built:
                    counts["errors"] += 1
                    samples.append(f"{' '.join(args)}: {out.stderr.strip()[:300]}")
                elif out.returncode not in (0, 1):
                    if "no index at" in out.stderr:
                        counts["no_index_yet"] += 1
                    else:
                        counts["errors"] += 1
                        samples.append(f"{' '.join(args)}: {out.stderr.strip()[:300]}")
            i += 1

    workers = [threading.Thread(target=worker, args=(n,)) for n in range(2)]
    for w in workers:
        w.start()
    child.wait()
    for w in workers:
        w.join()
    if child.returncode != 0:
        counts["errors"] += 1
        samples.append(f"the indexing run itself failed: exit {child.returncode}")
    return counts, samples


def main():
    args, evident = index_bench.setup(
        lambda p: p.add_argument("--seed", type=int, default=int(time.time())), runs=100)
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "evident", "--example", "index_dump", "--quiet"],
                       cwd=index_bench.ROOT, check=True)
    dumper = str(index_bench.ROOT / "target" / "release" / "examples" / "index_dump")
    corpus = index_bench.fetch_corpus()
    WORK.mkdir(parents=True, exist_ok=True)
    failures_dir = WORK / "failures"
    shutil.rmtree(failures_dir, ignore_errors=True)
    rng = random.Random(args.seed)
    tree = Tree(corpus, args.seed)
    print(f"corpus: Django {index_bench.VERSION} sdist; {os.cpu_count()} cores; {args.runs} trials; seed {args.seed}",
          flush=True)

    # References: clean builds of both states, and each kind's clean duration.
    references, durations = {}, {"cold": [], "switch": [], "rebuild": [], "worktree": []}
    for state in ("B", "A"):
        tree.switch(state)
        durations["rebuild"].append(index(evident, tree.root, "--rebuild"))
        code, text, err = dump(dumper, tree.root)
        if code != 0:
            sys.exit(f"the clean build of state {state} does not pass the dump's checks: {err}")
        references[state] = text
    for _ in range(2):
        shutil.rmtree(tree.root / ".evident")
        shutil.rmtree(tree.worktree / ".evident", ignore_errors=True)
        durations["cold"].append(index(evident, tree.root))
        for state in ("B", "A"):
            tree.switch(state)
            durations["switch"].append(index(evident, tree.root))
            tree.switch_worktree("B" if state == "A" else "A")
            durations["worktree"].append(index(evident, tree.worktree))
    duration = {kind: statistics.median(times) for kind, times in durations.items()}
    for state, text in references.items():
        print(f"reference {state}: {len(text.splitlines())} rows")
    print("clean durations: " + ", ".join(f"{k} {v:.2f} s" for k, v in duration.items()))

    kinds = ["cold", "switch", "rebuild", "worktree"]
    results = []
    started = time.perf_counter()
    for number in range(args.runs):
        kind = kinds[number % len(kinds)]
        result = trial(evident, dumper, tree, references, kind, duration[kind], rng, failures_dir, number)
        results.append(result)
        for problem in result["problems"]:
            print(f"  trial {number} ({kind}, kill at {result['delay']:.2f} s): {problem}", flush=True)
        if (number + 1) % 10 == 0:
            print(f"  {number + 1} trials, {sum(1 for r in results if r['problems'])} with problems, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
    elapsed = time.perf_counter() - started

    print(f"\n{'kind':<12} {'trials':>6} {'mid-run':>8} {'query/status failures':>22} {'differs from clean':>19}")
    for kind in kinds:
        mine = [r for r in results if r["kind"] == kind]
        bad_queries = sum(1 for r in mine if any(not p.startswith("resumed") for p in r["problems"]))
        print(f"{kind:<12} {len(mine):>6} {sum(r['mid_run'] for r in mine):>8} {bad_queries:>22} "
              f"{sum(r['differs'] for r in mine):>19}")
    print(f"{len(results)} trials in {elapsed:.0f} s")

    print("\nqueries while indexing (2 workers looping status and 4 queries until the run ends):")
    concurrent_errors = 0
    for kind in ("cold", "switch", "rebuild", "cold", "switch", "rebuild"):
        counts, samples = queries_while_indexing(evident, tree, kind)
        concurrent_errors += counts["errors"]
        print(f"  {kind:<12} {counts['queries']:>4} queries, {counts['errors']} errors, "
              f"{counts['no_index_yet']} 'no index yet' before the first commit")
        for sample in samples[:5]:
            print(f"    {sample}")
    code, text, err = dump(dumper, tree.root)
    if code != 0 or text != references[tree.state]:
        concurrent_errors += 1
        print(f"  the index after the concurrent runs differs from a clean build of state {tree.state}")

    failed = sum(1 for r in results if r["problems"]) + concurrent_errors
    tree.switch("A")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
