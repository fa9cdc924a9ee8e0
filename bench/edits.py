#!/usr/bin/env python3
"""One-file edits of several kinds on Django 5.2.8: how long `evident index`
takes after each, with the edit that changes only a body as the baseline in
the same run.

Usage: python3 bench/edits.py [--runs N] [--no-build | --evident PATH] [--modules a.py,b.py]

For each module and edit kind, N times: apply the edit, time the incremental
`evident index`, put the file back and index again (untimed). The kinds,
found with Python's `ast` (never with evident):
  - body:   a statement appended to the last top-level function's body;
  - add:    a new top-level function, at the end of the module;
  - remove: the last top-level function taken out;
  - rename: the first top-level class renamed where it is defined.
Prints the median per module and kind, the median over modules per kind, and
each kind's ratio to the body edit. The index is built once, cold, first.
"""
import ast
import pathlib
import statistics
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, fetch_corpus, timed)

MODULES = [
    "django/utils/text.py",
    "django/db/models/query.py",
    "django/http/request.py",
    "django/utils/functional.py",
]
KINDS = ["body", "add", "remove", "rename"]


def top_level(source, kind):
    tree = ast.parse(source)
    return [n for n in tree.body if isinstance(n, kind)]


def edited(source, kind):
    """The module's text after one edit of `kind`."""
    lines = source.splitlines(keepends=True)
    functions = top_level(source, ast.FunctionDef)
    if kind == "body":
        last = functions[-1]
        indent = " " * last.body[0].col_offset
        return "".join(lines[: last.end_lineno] + [f"{indent}_edited = 1\n"] + lines[last.end_lineno:])
    if kind == "add":
        return source + "\n\ndef added_by_bench(value):\n    return str(value)\n"
    if kind == "remove":
        last = functions[-1]
        start = min([last.lineno] + [d.lineno for d in last.decorator_list])
        return "".join(lines[: start - 1] + lines[last.end_lineno:])
    if kind == "rename":
        first = top_level(source, ast.ClassDef)[0]
        line = lines[first.lineno - 1].replace(f"class {first.name}", f"class {first.name}Renamed", 1)
        return "".join(lines[: first.lineno - 1] + [line] + lines[first.lineno:])
    raise ValueError(kind)


def main():
    def configure(parser):
        parser.add_argument("--modules", help="comma-separated module paths (default: four Django modules)")

    args, evident = index_bench.setup(configure, runs=3)
    corpus = index_bench.fetch_corpus()
    modules = args.modules.split(",") if args.modules else MODULES
    index = [evident, "index", "--quiet", "."]
    subprocess.run([evident, "index", "--quiet", "--rebuild", "."], cwd=corpus, check=True,
                   stdout=subprocess.DEVNULL)
    times = {}
    for module in modules:
        path = corpus / module
        original = path.read_text()
        try:
            for kind in KINDS:
                text = edited(original, kind)
                for _ in range(args.runs):
                    path.write_text(text)
                    seconds = index_bench.timed(index, corpus)
                    times.setdefault((module, kind), []).append(seconds)
                    path.write_text(original)
                    index_bench.timed(index, corpus)
        finally:
            path.write_text(original)
            subprocess.run(index, cwd=corpus, check=True, stdout=subprocess.DEVNULL)
    med = statistics.median
    print(f"Django {index_bench.VERSION}, {args.runs} runs per module and kind; medians in ms; {evident}")
    print(f"{'module':32}" + "".join(f"{k:>9}" for k in KINDS))
    for module in modules:
        print(f"{module:32}" + "".join(f"{med(times[(module, k)]) * 1000:9.0f}" for k in KINDS))
    per_kind = {k: med([med(times[(m, k)]) for m in modules]) for k in KINDS}
    print(f"{'median over modules':32}" + "".join(f"{per_kind[k] * 1000:9.0f}" for k in KINDS))
    print(f"{'ratio to the body edit':32}" + "".join(f"{per_kind[k] / per_kind['body']:9.2f}" for k in KINDS))


if __name__ == "__main__":
    main()
