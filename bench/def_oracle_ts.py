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
import collections
import json
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import def_oracle  # noqa: E402  (evident_answers, matches)
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
    counts = collections.Counter()
    for p in drawn["positions"]:
        oracle = {(o["path"], o["line"], o["name"]) for o in p["oracle"]}
        answers, candidates = def_oracle.evident_answers(evident, corpus, p["path"], p["line"], p["column"])
        exact = bool(answers) and all(r.get("confidence", "exact") == "exact" for r in answers)
        agree = any(def_oracle.matches(r, a) for r in answers for a in oracle)
        strict = bool(answers) and all(any(def_oracle.matches(r, a) for a in oracle) for r in answers) \
            and all(any(def_oracle.matches(r, a) for r in answers) for a in oracle)
        counts["asked"] += 1
        counts["agree"] += agree
        counts["strict"] += strict
        counts["exact"] += exact
        counts["exact_agree"] += exact and agree
        counts["exact_strict"] += exact and strict
        counts["nothing"] += not answers and not candidates
        counts["candidates_only"] += not answers and bool(candidates)
        if not agree and args.verbose:
            print(f"  {p['path']}:{p['line']}:{p['column']} {p['word']}: evident "
                  f"{[(r['path'], r['start_line'], r['name']) for r in answers]} ts {sorted(oracle)}")
    n, e = counts["asked"], counts["exact"]
    print(f"rxjs 7.8.2 src: {n} positions where the TypeScript language service answers inside the code base "
          f"(drawn from {drawn['identifiers']} identifier tokens, seed {args.seed})")
    print(f"  agreement:        {counts['agree'] / n:.1%}  (strict {counts['strict'] / n:.1%})")
    print(f"  evident `exact`:  {e} positions, agreement {counts['exact_agree'] / max(e, 1):.1%}"
          f"  (strict {counts['exact_strict'] / max(e, 1):.1%})")
    print(f"  evident answered nothing: {counts['nothing'] / n:.1%}; "
          f"only name_only candidates: {counts['candidates_only'] / n:.1%}")


if __name__ == "__main__":
    main()
