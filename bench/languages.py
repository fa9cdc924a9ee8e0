#!/usr/bin/env python3
"""Per-language figures on real source trees, against universal-ctags.

Usage: python3 bench/languages.py [--runs N] [--no-build] [--evident BIN] [--only NAME ...]

For each of the ten languages added after the first six, one real tree is
fetched from a package registry into bench/.work/languages/ (once):

  C        Pillow's sdist (PyPI): src/libImaging and friends
  C++      ninja's sdist (PyPI): the ninja build tool's sources
  C#       pythonnet's sdist (PyPI): the .NET runtime bridge
  Ruby     ruby-rack (Debian)
  PHP      php-symfony-console (Debian)
  Kotlin   expo-modules-core (npm): its Android sources
  Swift    expo-modules-core (npm): its iOS sources
  Bash     dracut-core (Debian): dracut's module scripts
  Lua      lua-penlight (Debian)

Scala has no tree here: Debian ships Scala as jars, and the PyPI and npm
packages checked hold no Scala sources; the fixture tests cover it.

Then, in one run per tree, over N runs each: `ctags -R` (the baseline) and a
cold `evident index --no-embed`; and from the index: the language's files,
definitions, call sites, and how the calls resolve (exact / inferred /
name_only / external or builtin / unresolved). Prints a Markdown table.
"""
import io
import json
import pathlib
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, timed, WORK)

WORK = index_bench.WORK / "languages"

# (label, language as stored in `files.lang`, registry, package, version or None for the current one)
TREES = [
    ("C", "c", "pypi", "pillow", "13.0.0"),
    ("C++", "cpp", "pypi", "ninja", "1.13.2"),
    ("C#", "csharp", "pypi", "pythonnet", "3.2.1"),
    ("Ruby", "ruby", "debian", "ruby-rack", None),
    ("PHP", "php", "debian", "php-symfony-console", None),
    ("Kotlin", "kotlin", "npm", "expo-modules-core", "58.1.0"),
    ("Swift", "swift", "npm", "expo-modules-core", "58.1.0"),
    ("Bash", "bash", "debian", "dracut-core", None),
    ("Lua", "lua", "debian", "lua-penlight", None),
]


def download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def fetch(registry: str, package: str, version) -> pathlib.Path:
    """The package's files, unpacked once under bench/.work/languages/."""
    target = WORK / f"{registry}-{package}-{version or 'debian'}"
    if target.is_dir():
        return target
    staging = pathlib.Path(tempfile.mkdtemp(dir=WORK.parent))
    try:
        if registry == "pypi":
            index_url = f"https://pypi.org/pypi/{package}/json"
            meta = json.loads(download(index_url))
            files = meta.get("releases", {}).get(version) or []
            sdist = next(u["url"] for u in files if u["packagetype"] == "sdist")
            # A mirror may answer with addresses relative to the index page.
            data = download(urllib.parse.urljoin(index_url, sdist))
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(staging, filter="data")
        elif registry == "npm":
            meta = json.loads(download(f"https://registry.npmjs.org/{package}/{version}"))
            data = download(meta["dist"]["tarball"])
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(staging, filter="data")
        else:
            subprocess.run(["apt-get", "download", "-q", package], cwd=staging, check=True,
                           stdout=subprocess.DEVNULL)
            deb = next(staging.glob(f"{package}_*.deb"))
            subprocess.run(["dpkg-deb", "-x", str(deb), str(staging / "root")], check=True)
            deb.unlink()
        WORK.mkdir(parents=True, exist_ok=True)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def figures(db_path: pathlib.Path, lang: str) -> dict:
    db = sqlite3.connect(db_path)
    one = lambda sql: db.execute(sql, (lang,)).fetchone()[0]  # noqa: E731
    files = one("SELECT count(*) FROM files WHERE lang = ?")
    definitions = one("SELECT count(*) FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.lang = ?")
    calls = one("SELECT count(*) FROM calls c JOIN files f ON f.id = c.file_id WHERE f.lang = ?")
    best = dict(db.execute(
        """SELECT best, count(*) FROM (
             SELECT c.id, min(CASE g.confidence WHEN 'exact' THEN 0 WHEN 'inferred' THEN 1
                                  WHEN 'name_only' THEN 2 END) AS best
             FROM calls c JOIN files f ON f.id = c.file_id JOIN edges g ON g.call_id = c.id
             WHERE f.lang = ? GROUP BY c.id) GROUP BY best""", (lang,)).fetchall())
    outside = one("SELECT count(*) FROM externals x JOIN files f ON f.id = x.file_id WHERE f.lang = ?")
    errors = one("SELECT count(*) FROM files WHERE lang = ? AND syntax_errors = 1")
    resolved = sum(best.values()) + outside
    share = lambda n: 100.0 * n / calls if calls else 0.0  # noqa: E731
    return {
        "files": files, "definitions": definitions, "calls": calls, "errors": errors,
        "exact": share(best.get(0, 0)), "inferred": share(best.get(1, 0)),
        "name_only": share(best.get(2, 0)), "outside": share(outside),
        "unresolved": share(calls - resolved),
    }


def main():
    args, evident = index_bench.setup(
        lambda p: p.add_argument("--only", nargs="*", help="labels to run (C, C++, Ruby, ...)"), runs=3)
    if shutil.which("ctags") is None:
        raise SystemExit("universal-ctags is needed: apt-get install universal-ctags")
    rows = []
    for label, lang, registry, package, version in TREES:
        if args.only and label not in args.only:
            continue
        tree = fetch(registry, package, version)
        with tempfile.TemporaryDirectory() as tmp:
            repo = pathlib.Path(tmp) / "repo"
            shutil.copytree(tree, repo, symlinks=True)
            ctags, cold = [], []
            for _ in range(args.runs):
                ctags.append(index_bench.timed(["ctags", "-R", "-f", str(pathlib.Path(tmp) / "tags")], repo))
                shutil.rmtree(repo / ".evident", ignore_errors=True)
                cold.append(index_bench.timed([evident, "index", "--no-embed", "--repo", str(repo)], repo))
            f = figures(repo / ".evident" / "index.db", lang)
        f.update(label=label, source=f"{package} ({registry})", ctags=statistics.median(ctags),
                 evident=statistics.median(cold))
        rows.append(f)
        print(f"{label}: {f}", file=sys.stderr)
    print(f"{args.runs} runs each, medians; shares are of the language's call sites\n")
    print("| language | tree | files | definitions | calls | exact | inferred | name_only | outside | unresolved | files with syntax errors | ctags -R | evident index | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['label']} | {r['source']} | {r['files']} | {r['definitions']} | {r['calls']} "
              f"| {r['exact']:.1f}% | {r['inferred']:.1f}% | {r['name_only']:.1f}% | {r['outside']:.1f}% "
              f"| {r['unresolved']:.1f}% | {r['errors']} | {r['ctags']:.2f} s | {r['evident']:.2f} s "
              f"| {r['evident'] / r['ctags']:.1f}× |")


if __name__ == "__main__":
    main()
