#!/usr/bin/env python3
"""Python call graph against PyCG's published micro-benchmark.

Usage: python3 bench/pycg_micro.py [--no-build | --evident PATH] [--verbose] [--only CATEGORY,...]

The suite ships in the PyPI sdist of `pycg` 0.0.8 (`micro-benchmark/snippets/
CATEGORY/CASE/`: Python files and the call graph PyCG's authors wrote by
hand, `callgraph.json`, caller -> callees by qualified name). It is fetched
with `pip download` into bench/.work/pycg. Each case is indexed as its own
repository, and `evident graph --format json` gives evident's edges.

Scoring: an edge is (caller, callee) by qualified name, `main` for a
module's own code, as both sides write them. Expected edges whose callee is
outside the case's own modules (`<builtin>.print`, an external package) are
left out: evident keeps those as external targets, not edges. So are
evident's edges to a class: that is how it records instantiating a class
that defines no constructor, a call PyCG's graphs have no node for (one that
does define `__init__` gets an edge to it, as PyCG writes). Precision and
recall over all edges, with and without evident's `name_only` edges (guesses
by name alone).

Halves are categories, fixed before any run: A (rules may be drawn from its
misses) is the first nine categories in alphabetical order (args ...
exceptions), B the other nine (external ... returns), held out.
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
import index as index_bench  # noqa: E402  (WORK, ROOT)

VERSION = "0.0.8"
WORK = index_bench.WORK / "pycg"
HALF_A = {"args", "assignments", "builtins", "classes", "decorators", "dicts", "direct_calls", "dynamic",
          "exceptions"}


def fetch_suite():
    root = WORK / f"pycg-{VERSION}" / "micro-benchmark" / "snippets"
    if root.is_dir():
        return root
    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    f"pycg=={VERSION}", "-d", str(WORK)], check=True)
    with tarfile.open(WORK / f"pycg-{VERSION}.tar.gz") as tar:
        tar.extractall(WORK, filter="data")
    return root


def modules_of(case):
    """Dotted module names of the case's files (`pkg/mod.py` -> `pkg.mod`, `pkg/__init__.py` -> `pkg`)."""
    out = set()
    for path in case.rglob("*.py"):
        parts = list(path.relative_to(case).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            out.add(".".join(parts))
    return out


def expected_edges(case):
    graph = json.loads((case / "callgraph.json").read_text())
    modules = modules_of(case)
    inside = lambda name: any(name == m or name.startswith(m + ".") for m in modules)  # noqa: E731
    return {(caller, callee) for caller, callees in graph.items() for callee in callees if inside(callee)}


def evident_edges(evident, case, scratch):
    repo = scratch / case.parent.name / case.name
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(case, repo, ignore=shutil.ignore_patterns("callgraph.json", "README.md"))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([evident, "index", "--quiet", "--no-embed", "."], cwd=repo, check=True, capture_output=True)
    out = subprocess.run([evident, "graph", "--format", "json"], cwd=repo, check=True, capture_output=True,
                         text=True)
    graph = json.loads(out.stdout)
    # An edge to a class is how evident records instantiating a class that
    # defines no constructor; PyCG's graph has no node for that call.
    classes = {n["qualified_name"] for n in graph["nodes"] if n["kind"] == "class"}
    return {(e["caller"], e["callee"], e["confidence"]) for e in graph["edges"] if e["callee"] not in classes}


def main():
    def configure(parser: argparse.ArgumentParser):
        parser.add_argument("--verbose", action="store_true", help="print each case's missed and wrong edges")
        parser.add_argument("--only", help="comma-separated categories")

    args, evident = index_bench.setup(configure)
    suite = fetch_suite()
    scratch = WORK / "cases"
    only = set(args.only.split(",")) if args.only else None
    rows = {"A": [], "B": []}
    cases = sorted(p.parent for p in suite.rglob("callgraph.json"))
    for case in cases:
        category = case.relative_to(suite).parts[0]
        if only and category not in only:
            continue
        expected, found = expected_edges(case), evident_edges(evident, case, scratch)
        rows["A" if category in HALF_A else "B"].append((expected, found))
        missed = edge_scores.misses(expected, found)
        if args.verbose and missed:
            print(f"{case.relative_to(suite)}: {missed}")
    print(f"PyCG {VERSION} micro-benchmark: {sum(len(r) for r in rows.values())} cases; {evident}")
    edge_scores.report(rows, "cases")


if __name__ == "__main__":
    main()
