#!/usr/bin/env python3
"""JavaScript call graph against js-callgraph's published ground truth.

Usage: python3 bench/js_callgraph.py [--no-build | --evident PATH] [--verbose]

The ground truth ships in npm's `@persper/js-callgraph` 1.3.2 (`tests/DIR/
NAME.truth` beside `NAME.js`: one edge a line, `file:caller:LINE ->
file:callee:LINE`, the call's line and the callee's first line), fetched
with `npm pack` into bench/.work/js_callgraph. Each test directory is
indexed as its own repository; a truth file checks only the calls written
in its own `.js` file, as the suite's own runner does.

Scoring: an edge is (file, call line, callee's file, callee's first line);
names are not compared (the suite calls every unnamed function `anon`).
Edges to `Native` (the runtime) are left out, as the suite's runner leaves
them out, and so are evident's edges to a class (instantiating a class that
defines no constructor, where the suite records no call; a constructor
function or a `constructor` is a function, and counts). Precision and recall
over all edges, with and without evident's `name_only` edges.

Halves are directories, fixed before any run: A (rules may be drawn from its
misses) is `basics`, `classes` and `es6`; B, held out, is everything else
(`import-export/*`, `limits`, `typescript`, `unexpected`, `unhandled/*`,
`vue`).
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import edge_scores  # noqa: E402
import index as index_bench  # noqa: E402  (WORK, setup)

PACKAGE = "@persper/js-callgraph@1.3.2"
WORK = index_bench.WORK / "js_callgraph"
HALF_A = {"basics", "classes", "es6"}


def fetch_suite():
    root = WORK / "package" / "tests"
    if root.is_dir():
        return root
    WORK.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(["npm", "pack", "--silent", PACKAGE], cwd=WORK, check=True, capture_output=True, text=True)
    with tarfile.open(WORK / out.stdout.strip().splitlines()[-1]) as tar:
        tar.extractall(WORK, filter="data")
    return root


def truth_edges(truth):
    edges = set()
    for line in truth.read_text().splitlines():
        if "->" not in line or "Native" in line:
            continue
        caller, callee = (side.strip().split(":") for side in line.split("->"))
        edges.add((caller[0], int(caller[-1]), callee[0], int(callee[-1])))
    return edges


def evident_edges(evident, directory, scratch):
    repo = scratch / directory.relative_to(scratch.parent / "package" / "tests")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(directory, repo, ignore=shutil.ignore_patterns("*.truth"))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([evident, "index", "--quiet", "--no-embed", "."], cwd=repo, check=True, capture_output=True)
    out = subprocess.run([evident, "graph", "--format", "json"], cwd=repo, check=True, capture_output=True, text=True)
    graph = json.loads(out.stdout)
    starts = {n["qualified_name"]: (n["path"], n["start_line"]) for n in graph["nodes"]}
    # An edge to a class is how evident records instantiating a class that
    # defines no constructor; the suite records no call there.
    classes = {n["qualified_name"] for n in graph["nodes"] if n["kind"] == "class"}
    edges = set()
    for e in graph["edges"]:
        if e["callee"] in classes:
            continue
        path, line = starts[e["callee"]]
        edges.add((pathlib.Path(e["path"]).name, e["line"], pathlib.Path(path).name, line, e["confidence"]))
    return edges


def main():
    def configure(parser: argparse.ArgumentParser):
        parser.add_argument("--verbose", action="store_true", help="print each test's missed and wrong edges")

    args, evident = index_bench.setup(configure)
    suite = fetch_suite()
    scratch = WORK / "cases"
    rows = {"A": [], "B": []}
    for directory in sorted({t.parent for t in suite.rglob("*.truth")}):
        found = evident_edges(evident, directory, scratch)
        half = "A" if directory.relative_to(suite).parts[0] in HALF_A else "B"
        for truth in sorted(directory.glob("*.truth")):
            name = truth.with_suffix(".js").name
            expected = truth_edges(truth)
            mine = {e for e in found if e[0] == name}
            rows[half].append((expected, mine))
            missed = edge_scores.misses(expected, mine)
            if args.verbose and missed:
                print(f"{truth.relative_to(suite)}: {missed}")
    print(f"js-callgraph ground truth ({PACKAGE}): {sum(len(r) for r in rows.values())} files; {evident}")
    edge_scores.report(rows, "files")


if __name__ == "__main__":
    main()
