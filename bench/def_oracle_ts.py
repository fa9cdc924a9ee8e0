#!/usr/bin/env python3
"""`evident def` against the TypeScript language service on rxjs's sources.

Usage: python3 bench/def_oracle_ts.py [--positions N] [--seed S] [--no-build] [--verbose]

Installs `bench/ts_oracle/package.json` (npm `typescript` 5.9.3 and `rxjs`
7.8.2, whose package ships its TypeScript sources under `src/`) into
bench/.work/ts_oracle, copies rxjs's `src/` out as the corpus, and runs
`bench/ts_oracle/oracle.js`: `getDefinitionAtPosition` on identifier tokens
drawn uniformly with a fixed seed, keeping the positions where the service
answers inside the corpus. Scored as bench/def_oracle.py scores Jedi.
"""
import json
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import def_oracle  # noqa: E402  (Score)
import index as index_bench  # noqa: E402  (setup, ROOT, WORK)

ORACLE = index_bench.ROOT / "bench" / "ts_oracle"


def fetch():
    work = index_bench.WORK / "ts_oracle"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(ORACLE / "package.json", work / "package.json")
    if not (work / "node_modules" / "rxjs" / "src").is_dir():
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=work, check=True)
    corpus = index_bench.WORK / "rxjs-7.8.2-src"
    if not corpus.is_dir():
        shutil.copytree(work / "node_modules" / "rxjs" / "src", corpus)
    return work, corpus


def main():
    def configure(parser):
        parser.add_argument("--positions", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=17)
        parser.add_argument("--verbose", action="store_true")
    args, evident = index_bench.setup(configure)
    work, corpus = fetch()
    # Always from scratch: an index built by another build keeps that build's rows.
    subprocess.run([evident, "index", "--rebuild", "."], cwd=corpus, check=True, capture_output=True)
    out = subprocess.run(["node", str(ORACLE / "oracle.js"), str(corpus), str(args.positions), str(args.seed)],
                         cwd=work, check=True, capture_output=True, text=True,
                         env={"NODE_PATH": str(work / "node_modules"), "PATH": subprocess.os.environ["PATH"]})
    drawn = json.loads(out.stdout)
    score = def_oracle.Score("ts", args.verbose)
    for p in drawn["positions"]:
        oracle = {(o["path"], o["line"], o["name"]) for o in p["oracle"]}
        score.add(evident, corpus, p["path"], p["line"], p["column"], p["word"], oracle)
    print(f"rxjs 7.8.2 src: {score.asked} positions where the TypeScript language service answers inside "
          f"the code base (drawn from {drawn['identifiers']} identifier tokens, seed {args.seed})")
    score.report()


if __name__ == "__main__":
    main()
