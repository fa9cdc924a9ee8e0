#!/usr/bin/env python3
"""Resource bounds: many small files, and a few huge ones.

Usage: python3 bench/resources.py [--files N] [--huge-mb MB] [--no-build]

Generates two repositories under bench/.work/resources/ (nothing to fetch:
the shapes are the point) and measures, against universal-ctags on the same
tree as the baseline:

  many   N small Python files (default 100,000; 1,000 directories; each file
         imports a sibling, defines a class with a method and two functions,
         and calls across files);
  huge   four files of MB megabytes each (default 50: two Python, one
         Markdown, one JSON-like text) next to 200 ordinary files.

For each: wall time and peak RSS (GNU time) of a cold `evident index`, of a
run with nothing changed, and of `ctags -R`; the size of the index; what the
run skipped, by reason. On `huge`, evident runs with its default size limit
(1 MiB: the huge files must be skipped and counted), then once more with the
limit raised above the huge files, to show what parsing them costs; that run
is watched and stopped if its RSS passes 8 GiB. ctags, which has no size
limit, is stopped after 120 s.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402

WORK = index_bench.WORK / "resources"
RSS_CAP_KIB = 8 * 1024 * 1024
CTAGS_TIMEOUT_S = 120


def make_many(root, files):
    marker = root / ".complete"
    if marker.exists() and marker.read_text() == str(files):
        return
    shutil.rmtree(root, ignore_errors=True)
    dirs = 1000
    for d in range(dirs):
        (root / f"pkg{d}").mkdir(parents=True)
        (root / f"pkg{d}" / "__init__.py").write_text("")
    for i in range(files - dirs):
        d, n = i % dirs, i // dirs
        other = (d + 1) % dirs
        (root / f"pkg{d}" / f"mod{n}.py").write_text(
            f"from pkg{other}.mod{n} import helper_{other}_{n}\n\n\n"
            f"class Thing{d}_{n}:\n"
            f"    def run(self, value):\n"
            f"        return helper_{other}_{n}(value) + {i}\n\n\n"
            f"def helper_{d}_{n}(value):\n"
            f"    return value * 2\n\n\n"
            f"def use_{d}_{n}():\n"
            f"    return Thing{d}_{n}().run(helper_{d}_{n}(1))\n")
    marker.write_text(str(files))


def make_huge(root, megabytes):
    marker = root / ".complete"
    if marker.exists() and marker.read_text() == str(megabytes):
        return
    shutil.rmtree(root, ignore_errors=True)
    (root / "src").mkdir(parents=True)
    for i in range(200):
        (root / "src" / f"small{i}.py").write_text(
            f"import os\n\n\ndef small_{i}(path):\n    return os.path.join(path, '{i}')\n")
    size = megabytes * 1024 * 1024

    def fill(path, unit):
        with open(path, "w") as out:
            written, n = 0, 0
            while written < size:
                text = unit(n)
                out.write(text)
                written += len(text)
                n += 1

    fill(root / "generated_a.py", lambda n: f"def generated_{n}(x):\n    return generated_{max(n - 1, 0)}(x) + {n}\n\n")
    fill(root / "generated_b.py", lambda n: f"class Table{n}:\n    rows = [{', '.join(str(k) for k in range(20))}]\n\n")
    fill(root / "dump.md", lambda n: f"## Section {n}\n\nSome text about section {n}, written by a generator.\n\n")
    fill(root / "data.py", lambda n: f"DATA_{n} = {{'key': {n}, 'values': [{n}, {n + 1}, {n + 2}]}}\n")
    marker.write_text(str(megabytes))


def measure(cmd, cwd, cap_kib=None, timeout=None):
    """(wall seconds, peak RSS KiB, exit code, stdout) of one run; the run is killed once
    its RSS passes `cap_kib` or its time `timeout` seconds (exit code -9 either way)."""
    started = time.perf_counter()
    child = subprocess.Popen(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if cap_kib or timeout:
        def watch():
            while child.poll() is None:
                late = timeout and time.perf_counter() - started > timeout
                for pid in children_of(child.pid):
                    if late or (cap_kib and rss_kib(pid) > cap_kib):
                        os.kill(pid, 9)
                time.sleep(0.05)
        threading.Thread(target=watch, daemon=True).start()
    out, err = child.communicate()
    wall = time.perf_counter() - started
    lines = err.strip().splitlines()
    peak = int(lines[-1]) if lines and lines[-1].isdigit() else 0
    return wall, peak, child.returncode, out


def children_of(pid):
    try:
        return [int(p) for p in pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def rss_kib(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def skipped_by_reason(summary):
    counts = {}
    for s in summary.get("skipped", []):
        reason = s["reason"].split(" (")[0].split(":")[0]
        counts[reason] = counts.get(reason, 0) + 1
    return counts


def report(name, evident, root, extra=(), cap_kib=None, ctags=True):
    shutil.rmtree(root / ".evident", ignore_errors=True)
    index_bench.empty_parse_cache()
    wall, peak, code, out = measure([evident, "--json", "index", *extra, str(root)], root, cap_kib)
    if code != 0:
        print(f"{name:<28} evident index exit {code} after {wall:.1f} s, peak RSS {peak / 1024:.0f} MiB"
              + (" (stopped at the RSS cap)" if code == -9 or code == 137 else ""))
        return None
    summary = json.loads(out.strip().splitlines()[-1])
    index_mib = sum(p.stat().st_size for p in (root / ".evident").glob("index.db*")) / 2**20
    print(f"{name:<28} evident cold   {wall:7.2f} s  peak RSS {peak / 1024:7.1f} MiB  "
          f"{summary['files']} files, {summary['definitions']} definitions, index {index_mib:.0f} MiB")
    print(f"{'':<28} skipped: {skipped_by_reason(summary) or 'none'}")
    wall2, peak2, _, _ = measure([evident, "index", "--quiet", *extra, str(root)], root)
    print(f"{'':<28} evident no-op  {wall2:7.2f} s  peak RSS {peak2 / 1024:7.1f} MiB")
    if ctags:
        tags = WORK / "tags"
        cwall, cpeak, ccode, _ = measure(["ctags", "-R", "-f", str(tags), "."], root, timeout=CTAGS_TIMEOUT_S)
        if ccode != 0:
            print(f"{'':<28} ctags -R       stopped after {cwall:.0f} s (exit {ccode}), peak RSS so far "
                  f"{cpeak / 1024:.1f} MiB: it has no size limit")
        else:
            print(f"{'':<28} ctags -R       {cwall:7.2f} s  peak RSS {cpeak / 1024:7.1f} MiB  "
                  f"(evident/ctags: time {wall / cwall:.2f}x, RSS {peak / max(cpeak, 1):.2f}x)")
    return summary


def main():
    def configure(parser):
        parser.add_argument("--files", type=int, default=100_000)
        parser.add_argument("--huge-mb", type=int, default=50)
    args, evident = index_bench.setup(configure, runs=1)
    if shutil.which("ctags") is None:
        sys.exit("universal-ctags is needed for the baseline (apt-get install universal-ctags)")
    print(f"{os.cpu_count()} cores")

    many = WORK / "many"
    started = time.perf_counter()
    make_many(many, args.files)
    print(f"many: {args.files} files generated in {time.perf_counter() - started:.0f} s")
    report(f"many ({args.files} files)", evident, many)

    huge = WORK / "huge"
    make_huge(huge, args.huge_mb)
    summary = report(f"huge (4 x {args.huge_mb} MB)", evident, huge)
    too_large = skipped_by_reason(summary or {}).get("too large", 0)
    if too_large != 4:
        sys.exit(f"expected the 4 huge files skipped as too large, got {too_large}")
    limit = str((args.huge_mb + 8) * 1024 * 1024)
    report(f"huge, limit {args.huge_mb + 8} MiB", evident, huge, ("--max-file-size", limit),
           cap_kib=RSS_CAP_KIB, ctags=False)


if __name__ == "__main__":
    main()
