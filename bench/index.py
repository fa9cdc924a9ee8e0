#!/usr/bin/env python3
"""Indexing benchmark: evident vs universal-ctags on the Django 5.2.8 sdist.

Usage: python3 bench/index.py [--runs N] [--no-build]

Fetches the corpus from PyPI (pip download) into bench/.work/, builds evident
in release mode, then measures in one run, each over N runs:
  - `ctags -R` (the baseline),
  - `evident index` cold (no index),
  - `evident index` after a one-line edit of one file,
  - `evident index` with nothing changed (a stat pass),
and prints medians, peak RSS and the evident/ctags ratio.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work"
VERSION = "5.2.8"
EDITED = "django/db/models/query.py"
# Every bench keeps its parse cache here, never in the user's; a cold run
# starts with it empty (`empty_parse_cache`), so cold means parsing.
PARSE_CACHE = WORK / "parse-cache"
os.environ["EVIDENT_CACHE_DIR"] = str(PARSE_CACHE)


def empty_parse_cache():
    """Forgets every file's parse results: the next run parses."""
    shutil.rmtree(PARSE_CACHE, ignore_errors=True)


def fetch_corpus() -> pathlib.Path:
    corpus = WORK / f"django-{VERSION}"
    if corpus.is_dir():
        return corpus
    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         f"django=={VERSION}", "-d", str(WORK)],
        check=True,
    )
    archive = next(WORK.glob(f"[dD]jango-{VERSION}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(WORK, filter="data")
    return corpus


def timed(cmd, cwd):
    """Wall seconds of one run."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_rss_kib(cmd, cwd):
    """Peak resident set size of one run, from GNU time."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, check=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(out.stderr.strip().splitlines()[-1])


def setup(configure=None, runs=5):
    """`--runs N` and `--no-build` (plus what `configure(parser)` adds); builds
    evident in release mode unless told not to. Returns the arguments and the
    path of the binary."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--evident", help="this evident binary (no build), e.g. a copy kept while building another")
    if configure:
        configure(parser)
    args = parser.parse_args()
    if args.evident:
        return args, str(pathlib.Path(args.evident).resolve())
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "evident", "--quiet"], cwd=ROOT, check=True)
    return args, str(ROOT / "target" / "release" / "evident")


def main():
    args, evident = setup()
    if shutil.which("ctags") is None:
        sys.exit("universal-ctags is needed for the baseline (apt-get install universal-ctags)")
    corpus = fetch_corpus()
    files = sum(1 for _ in corpus.rglob("*.py"))
    print(f"corpus: Django {VERSION} sdist, {files} .py files; {os.cpu_count()} cores; {args.runs} runs each")

    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "evident", "--example", "parse_floor"],
                   cwd=ROOT, check=True)
    parse_floor = str(ROOT / "target" / "release" / "examples" / "parse_floor")
    tags = WORK / "tags"
    ctags_times, cold_times, edit_times, noop_times = [], [], [], []
    bare_times, floor_times = [], []
    edited = corpus / EDITED
    original = edited.read_bytes()
    try:
        for run in range(args.runs):
            ctags_times.append(timed(["ctags", "-R", "-f", str(tags), "."], corpus))
            shutil.rmtree(corpus / ".evident", ignore_errors=True)
            empty_parse_cache()
            cold_times.append(timed([evident, "index", "--quiet", "."], corpus))
            edited.write_bytes(original + f"\n# edit {run}\n".encode())
            edit_times.append(timed([evident, "index", "--quiet", "."], corpus))
            noop_times.append(timed([evident, "index", "--quiet", "."], corpus))
            # Without the embedding step, against tree-sitter parsing the same files.
            shutil.rmtree(corpus / ".evident", ignore_errors=True)
            edited.write_bytes(original)
            empty_parse_cache()
            bare_times.append(timed([evident, "index", "--quiet", "--no-embed", "."], corpus))
            floor = subprocess.run([parse_floor, "."], cwd=corpus, check=True, capture_output=True, text=True)
            floor_times.append(json.loads(floor.stdout)["seconds"])
        ctags_rss = peak_rss_kib(["ctags", "-R", "-f", str(tags), "."], corpus)
        shutil.rmtree(corpus / ".evident", ignore_errors=True)
        cold_rss = peak_rss_kib([evident, "index", "--quiet", "."], corpus)
    finally:
        edited.write_bytes(original)
    summary = subprocess.run([evident, "index", "--rebuild", "."], cwd=corpus, check=True,
                             capture_output=True, text=True).stdout
    med = statistics.median
    print(f"ctags -R                     median {med(ctags_times):6.3f} s  peak RSS {ctags_rss / 1024:6.1f} MiB")
    print(f"evident index (cold)         median {med(cold_times):6.3f} s  peak RSS {cold_rss / 1024:6.1f} MiB")
    print(f"evident index (1 file edit)  median {med(edit_times) * 1000:6.1f} ms")
    print(f"evident index (no change)    median {med(noop_times) * 1000:6.1f} ms")
    print(f"ratio cold evident/ctags     {med(cold_times) / med(ctags_times):.2f}x")
    print(f"evident index --no-embed     median {med(bare_times):6.3f} s")
    print(f"parse floor (tree-sitter)    median {med(floor_times):6.3f} s")
    print(f"ratio --no-embed/parse floor {med(bare_times) / med(floor_times):.2f}x")
    print(f"evident: {summary.strip().splitlines()[0]}")


if __name__ == "__main__":
    main()
