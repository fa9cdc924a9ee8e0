#!/usr/bin/env python3
"""The Linux kernel (Debian's linux-source-6.1) on this machine, in one run.

Usage: python3 bench/kernel.py [--no-build] [--evident BIN] [--version V] [--old-version V] [--skip-ctags]

Fetches `linux-source-6.1` at two Debian versions with `apt-get download`
(once, into bench/.work/kernel/), unpacks the tarball inside each, commits
them on two branches of one git repository (bench/.work/kernel/repo: the
old version, then the new one), and measures, on the new one:
  - `ctags -R` (the baseline),
  - the parse floor: tree-sitter parsing every file the index holds, on both
    cores, and nothing else (`cargo run --release --example parse_floor`),
  - `evident index` cold (`--no-embed`), then a run with nothing changed, then
    a one-line edit of one file, a body edit of a header most files include,
  - `evident callers` (first page) and `evident impact --max-depth 3` on the
    most-called function, as the commands report their own query time
    (EVIDENT_PROFILE=1),
  - a switch to the old version's branch and back (each `git checkout`,
    then `evident index`), against the goal 2 × (files that differ × the cold
    index's cost per file) + the no-change run,
  - a second worktree (`git worktree add`) at the old version, indexed
    from nothing: it starts from the first worktree's index,
with wall time, peak RSS (GNU time) and the index's size against the indexed
source's. The kernel bench does not run in CI.
"""
import json
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, ROOT, WORK)

WORK = index_bench.WORK / "kernel"
EDITED = "mm/slab_common.c"
# A header thousands of files include: a statement added to the body of its
# first `static inline` function (what its includers read stays the same).
EDITED_HEADER = "include/linux/slab.h"


def header_body_edit(text):
    """`text` with `(void)0;` after the opening brace of its first
    multi-line `static inline` function; None when it has none."""
    lines = text.split("\n")
    for start, line in enumerate(lines):
        if not line.startswith("static inline") or line.rstrip().endswith("}"):
            continue
        brace = next((i for i in range(start, min(start + 4, len(lines)))
                      if lines[i].rstrip().endswith("{")), None)
        if brace is not None:
            return "\n".join(lines[: brace + 1] + ["\t(void)0;"] + lines[brace + 1:])
    return None


def fetch(version: str) -> pathlib.Path:
    """The unpacked tree of linux-source-6.1 at `version` (a Debian version)."""
    tree = WORK / f"linux-{version}"
    if tree.is_dir():
        return tree
    WORK.mkdir(parents=True, exist_ok=True)
    deb = next(WORK.glob(f"linux-source-6.1_{version}_all.deb"), None)
    if deb is None:
        download = ["apt-get", "download", "-q", f"linux-source-6.1={version}"]
        if subprocess.run(download, cwd=WORK).returncode != 0:
            # Package lists older than the version: refresh them once.
            subprocess.run(["apt-get", "update", "-q"], check=True)
            subprocess.run(download, cwd=WORK, check=True)
        deb = next(WORK.glob(f"linux-source-6.1_{version}_all.deb"))
    staging = WORK / f"staging-{version}"
    shutil.rmtree(staging, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(staging)], check=True)
    tarball = next((staging / "usr" / "src").glob("linux-source-6.1.tar.*"))
    with tarfile.open(tarball) as tar:
        tar.extractall(staging / "src", filter="data")
    (staging / "src" / "linux-source-6.1").rename(tree)
    shutil.rmtree(staging)
    upstream_gitignore(tree)
    return tree


def upstream_gitignore(tree: pathlib.Path):
    """Debian's packaging appends `/*` and `!/debian/` to the top-level
    .gitignore ("ignore everything at the top level"), which would leave
    nothing to index: the tree gets the kernel's own rules back."""
    gitignore = tree / ".gitignore"
    text = gitignore.read_text()
    cut = text.find("# Debian packaging")
    if cut != -1:
        gitignore.write_text(text[:text.rfind("#\n", 0, cut)].rstrip() + "\n")


def git(repo, *args, env=None):
    return subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost",
                           "-c", "core.looseCompression=1", *args],
                          cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def two_version_repo(old: str, new: str) -> pathlib.Path:
    """bench/.work/kernel/repo: branch `old` holds the old version's tree,
    branch `new` the new one's; `new` is checked out."""
    repo = WORK / "repo"
    if (repo / ".git").is_dir() and {old, new} <= set(git(repo, "branch", "--format=%(refname:short)").split()):
        git(repo, "checkout", "-q", "-f", new)
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", old)
    for version, branch in ((old, old), (new, new)):
        if branch != old:
            git(repo, "checkout", "-q", "-b", branch)
        # The unpacked tree is the work tree for this one commit: nothing is copied twice.
        git(repo, f"--work-tree={fetch(version)}", "add", "-A")
        git(repo, "commit", "-q", "-m", f"linux-source-6.1 {version}")
    git(repo, "checkout", "-q", "-f", new)
    return repo


def measured(cmd, cwd, env=None):
    """(wall seconds, peak RSS in MiB, stdout, stderr) of one run, from GNU time."""
    start = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, env=env, check=True,
                         capture_output=True, text=True)
    wall = time.perf_counter() - start
    rss_kib = int(out.stderr.strip().splitlines()[-1])
    return wall, rss_kib / 1024, out.stdout, out.stderr


def profile_ms(stderr, label):
    match = re.search(rf"profile: {re.escape(label)}: ([0-9.]+) ms", stderr)
    return float(match.group(1)) if match else None


def du_mib(path: pathlib.Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main():
    def configure(parser):
        parser.add_argument("--version", default="6.1.192-3", help="Debian version of linux-source-6.1")
        parser.add_argument("--old-version", default="6.1.190-1", help="the version on the other branch")
        parser.add_argument("--skip-ctags", action="store_true")
    args, evident = index_bench.setup(configure, runs=1)
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "evident", "--example", "parse_floor"],
                   cwd=index_bench.ROOT, check=True)
    parse_floor = str(index_bench.ROOT / "target" / "release" / "examples" / "parse_floor")
    tree = two_version_repo(args.old_version, args.version)
    env = {**os.environ, "EVIDENT_PROFILE": "1"}
    index_cmd = [evident, "index", "--no-embed", "."]

    class Rows(list):
        """The table's rows, each also printed as it is measured (a long run
        that stops early still says what it measured)."""

        def append(self, row):
            label, wall, rss = row
            print(f"measured: {label}: {wall:.2f} s{'' if rss is None else f', {rss:.0f} MiB'}", flush=True)
            super().append(row)

    rows = Rows()

    if not args.skip_ctags:
        wall, rss, _, _ = measured(["ctags", "-R", "-f", str(WORK / "tags"), "."], tree)
        rows.append(("ctags -R", wall, rss))

    shutil.rmtree(tree / ".evident", ignore_errors=True)
    index_bench.empty_parse_cache()
    wall, rss, _, err = measured(index_cmd, tree, env)
    cold = wall
    rows.append(("evident index, cold", wall, rss))
    profile = [line for line in err.splitlines() if line.startswith("profile:")]

    floor = json.loads(subprocess.run([parse_floor, "."], cwd=tree, check=True, capture_output=True,
                                      text=True).stdout)
    rows.append(("parse floor (tree-sitter only, 2 cores)", floor["seconds"], None))

    wall, rss, _, _ = measured(index_cmd, tree, env)
    no_change = wall
    rows.append(("evident index, nothing changed", wall, rss))

    edited = tree / EDITED
    original = edited.read_text(errors="surrogateescape")
    edited.write_text(original + "\n/* bench edit */\n", errors="surrogateescape")
    try:
        wall, rss, _, err = measured(index_cmd, tree, env)
        rows.append((f"evident index, one-line edit of {EDITED}", wall, rss))
        edit_profile = [line for line in err.splitlines() if line.startswith("profile:")]
    finally:
        edited.write_text(original, errors="surrogateescape")
    measured(index_cmd, tree, env)

    header = tree / EDITED_HEADER
    header_original = header.read_text(errors="surrogateescape")
    header_edited = header_body_edit(header_original)
    if header_edited is not None:
        header.write_text(header_edited, errors="surrogateescape")
        try:
            wall, rss, _, _ = measured(index_cmd, tree, env)
            rows.append((f"evident index, body edit of {EDITED_HEADER}", wall, rss))
        finally:
            header.write_text(header_original, errors="surrogateescape")
        measured(index_cmd, tree, env)

    db = sqlite3.connect(tree / ".evident" / "index.db")
    (files, source_bytes) = db.execute("SELECT count(*), sum(size) FROM files").fetchone()
    definitions = db.execute("SELECT count(*) FROM symbols").fetchone()[0]
    calls = db.execute("SELECT count(*) FROM calls").fetchone()[0]
    resolved = db.execute("SELECT count(DISTINCT call_id) FROM edges").fetchone()[0]
    outside = db.execute("SELECT count(*) FROM externals").fetchone()[0]
    target, fan_in = db.execute(
        """SELECT s.qualified_name, count(*) FROM edges g JOIN symbols s ON s.id = g.callee_id
           GROUP BY s.id ORDER BY count(*) DESC LIMIT 1""").fetchone()
    indexed_paths = {row[0] for row in db.execute("SELECT path FROM files")}
    db.close()
    index_mib = du_mib(tree / ".evident")

    wall, rss, _, err = measured([evident, "callers", target, "--json"], tree, env)
    callers_ms = profile_ms(err, "query callers")
    rows.append((f"evident callers {target} (first page)", wall, rss))
    wall, rss, _, err = measured([evident, "impact", target, "--max-depth", "3", "--json"], tree, env)
    impact_ms = profile_ms(err, "query impact")
    rows.append((f"evident impact {target} --max-depth 3", wall, rss))

    # Branch switches: the files that differ (and are indexed on either side) set the goal.
    changed = [p for p in git(tree, "diff", "--name-only", "-z", args.old_version, args.version).split("\0") if p]
    per_file = cold / files
    switches = []
    for branch in (args.old_version, args.version):
        git(tree, "checkout", "-q", branch)
        wall, rss, out, _ = measured(index_cmd, tree, env)
        summary = "\n".join(l for l in out.splitlines()
                             if l.startswith("indexed ") or "from the parse cache" in l)
        rows.append((f"evident index after `git checkout {branch}`", wall, rss))
        switches.append((branch, wall, summary))
        db = sqlite3.connect(tree / ".evident" / "index.db")
        indexed_paths |= {row[0] for row in db.execute("SELECT path FROM files")}
        db.close()
    differing = sum(1 for p in changed if p in indexed_paths)
    switch_goal = 2 * differing * per_file + no_change

    # A second worktree, from nothing: at the same commit as the first, then at the old version.
    worktree = WORK / "worktree"
    worktree_runs = []
    for version in (args.version, args.old_version):
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=tree, capture_output=True)
        shutil.rmtree(worktree, ignore_errors=True)
        git(tree, "worktree", "add", "-q", "--detach", str(worktree), version)
        try:
            wall, rss, out, _ = measured(index_cmd, worktree, env)
            rows.append((f"evident index of a second worktree at {version}", wall, rss))
            summary = "\n".join(l for l in out.splitlines()
                                 if l.startswith(("indexed ", "  started from")) or "from the parse cache" in l)
            worktree_runs.append((version, wall, summary))
        finally:
            git(tree, "worktree", "remove", "--force", str(worktree))

    print(f"linux-source-6.1 {args.version}: {files} files indexed, {source_bytes / 2**20:.0f} MiB of source; "
          f"{definitions} definitions, {calls} call sites ({100 * resolved / calls:.1f}% resolved, "
          f"{100 * outside / calls:.1f}% outside); most-called: {target} ({fan_in} call sites)\n")
    print("| step | wall | peak RSS |")
    print("| --- | ---: | ---: |")
    for label, wall, rss in rows:
        print(f"| {label} | {wall:.2f} s | {'' if rss is None else f'{rss:.0f} MiB'} |")
    print(f"\nindex size {index_mib:.0f} MiB = {index_mib / (source_bytes / 2**20):.2f}× the indexed source; "
          f"cold index = {cold / floor['seconds']:.1f}× the parse floor; "
          f"query time: callers {callers_ms} ms, impact {impact_ms} ms")
    print(f"\nbranch switch: {len(changed)} paths differ between {args.old_version} and {args.version} "
          f"({differing} of them indexed on either side); cost per file in the cold run {per_file * 1e3:.1f} ms; "
          f"goal 2 × {differing} × {per_file * 1e3:.1f} ms + {no_change:.2f} s = {switch_goal:.1f} s")
    for branch, wall, summary in switches:
        print(f"    to {branch}: {wall:.1f} s = {wall / switch_goal:.2f}× the goal; {summary}")
    for version, wall, summary in worktree_runs:
        print(f"second worktree at {version}: {wall:.1f} s = {100 * wall / cold:.1f}% of the cold index")
        print("    " + summary.replace("\n", "\n    "))
    print("\ncold run phases (EVIDENT_PROFILE=1):")
    for line in profile:
        print(f"    {line}")
    print("\none-line edit phases:")
    for line in edit_profile:
        print(f"    {line}")


if __name__ == "__main__":
    main()
