#!/usr/bin/env python3
"""`evident def` against Jedi's goto on random identifier positions in Django.

Usage: python3 bench/def_oracle.py [--positions N] [--seed S] [--no-build]

Jedi (PyPI `jedi`, installed by this script when missing) is the oracle: no
one here wrote it. Positions are NAME tokens (Python's own tokenizer, so no
strings or comments), drawn uniformly with a fixed seed from every `.py` file
of the Django 5.2.8 sdist. For each, Jedi's `goto(follow_imports=True)`
answers; positions where none of its answers lies inside the repository are
left out (builtins, the standard library). An evident answer matches a Jedi
answer when both name the same file, the same name, and Jedi's line lies in
the evident definition's lines (a decorated definition starts at its first
decorator). Reported:
  - agreement: some evident answer (not a `name_only` candidate) matches;
  - strict: every evident answer matches and every Jedi answer is matched;
  - the same two among positions where every evident answer is `exact`;
  - how often evident answers nothing, or only with candidates.
"""
import collections
import json
import keyword
import pathlib
import random
import subprocess
import sys
import tokenize

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, fetch_corpus)


def ensure_jedi():
    try:
        import jedi  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "jedi"], check=True)


def sample_positions(corpus, count, seed):
    """Reservoir sample of (path, line, column 1-based, name) over NAME tokens."""
    rng = random.Random(seed)
    chosen, seen = [], 0
    for path in sorted(corpus.rglob("*.py")):
        if ".evident" in path.parts:
            continue
        try:
            with open(path, "rb") as f:
                tokens = list(tokenize.tokenize(f.readline))
        except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
            continue
        rel = str(path.relative_to(corpus))
        for tok in tokens:
            if tok.type != tokenize.NAME or keyword.iskeyword(tok.string):
                continue
            item = (rel, tok.start[0], tok.start[1] + 1, tok.string)
            seen += 1
            if len(chosen) < count:
                chosen.append(item)
            else:
                j = rng.randrange(seen)
                if j < count:
                    chosen[j] = item
    return chosen, seen


def jedi_answers(project, corpus, rel, line, column):
    import jedi
    script = jedi.Script(path=str(corpus / rel), project=project)
    try:
        names = script.goto(line, column - 1, follow_imports=True)
    except Exception:  # Jedi raises on some odd positions; the oracle is silent there
        return None
    answers = set()
    for name in names:
        if name.module_path is None or name.line is None:
            continue
        try:
            path = str(pathlib.Path(name.module_path).resolve().relative_to(corpus.resolve()))
        except ValueError:
            continue
        answers.add((path, name.line, name.name))
    return answers


def evident_answers(evident, corpus, rel, line, column):
    out = subprocess.run([evident, "def", f"{rel}:{line}:{column}", "--json"], cwd=corpus,
                         capture_output=True, text=True)
    records = json.loads(out.stdout or "[]") if out.returncode in (0, 1) else []
    answers = [r for r in records if r.get("confidence") != "name_only"]
    candidates = len(records) - len(answers)
    return answers, candidates


def matches(record, answer):
    path, line, name = answer
    if record.get("kind") == "module":  # both name the module's file
        return record["path"] == path and line == 1
    return (record["path"] == path and record["name"] == name
            and record["start_line"] <= line <= record["end_line"])


class Score:
    """Agreement of `evident def` with an oracle's answers, position by position."""

    def __init__(self, oracle_name, verbose):
        self.oracle_name, self.verbose = oracle_name, verbose
        self.counts = collections.Counter()

    @property
    def asked(self):
        return self.counts["asked"]

    def add(self, evident, corpus, rel, line, column, word, oracle):
        counts = self.counts
        counts["asked"] += 1
        answers, candidates = evident_answers(evident, corpus, rel, line, column)
        exact = bool(answers) and all(r.get("confidence", "exact") == "exact" for r in answers)
        agree = any(matches(r, a) for r in answers for a in oracle)
        strict = bool(answers) and all(any(matches(r, a) for a in oracle) for r in answers) \
            and all(any(matches(r, a) for r in answers) for a in oracle)
        counts["agree"] += agree
        counts["strict"] += strict
        counts["exact"] += exact
        counts["exact_agree"] += exact and agree
        counts["exact_strict"] += exact and strict
        counts["nothing"] += not answers and not candidates
        counts["candidates_only"] += not answers and bool(candidates)
        if not agree and self.verbose:
            print(f"  {rel}:{line}:{column} {word}: evident "
                  f"{[(r['path'], r['start_line'], r['name']) for r in answers]} "
                  f"{self.oracle_name} {sorted(oracle)}")

    def report(self):
        counts, n, e = self.counts, max(self.counts["asked"], 1), self.counts["exact"]
        print(f"  agreement:        {counts['agree'] / n:.1%}  (strict {counts['strict'] / n:.1%})")
        print(f"  evident `exact`:  {e} positions, agreement {counts['exact_agree'] / max(e, 1):.1%}"
              f"  (strict {counts['exact_strict'] / max(e, 1):.1%})")
        print(f"  evident answered nothing: {counts['nothing'] / n:.1%}; "
              f"only name_only candidates: {counts['candidates_only'] / n:.1%}")


def main():
    def configure(parser):
        parser.add_argument("--positions", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=17)
        parser.add_argument("--verbose", action="store_true")
    args, evident = index_bench.setup(configure)
    ensure_jedi()
    import jedi
    corpus = index_bench.fetch_corpus()
    # Always from scratch: an index built by another build keeps that build's rows.
    subprocess.run([evident, "index", "--rebuild", "."], cwd=corpus, check=True, capture_output=True)
    project = jedi.Project(str(corpus))
    # Draw more than needed: positions the oracle answers outside the repository drop out.
    positions, total = sample_positions(corpus, args.positions * 3, args.seed)
    random.Random(args.seed).shuffle(positions)
    score = Score("jedi", args.verbose)
    for rel, line, column, word in positions:
        if score.asked >= args.positions:
            break
        oracle = jedi_answers(project, corpus, rel, line, column)
        if oracle:
            score.add(evident, corpus, rel, line, column, word, oracle)
    print(f"Django {index_bench.VERSION}: {score.asked} positions where Jedi answers inside the repository "
          f"(drawn from {total} identifier tokens, seed {args.seed})")
    score.report()


if __name__ == "__main__":
    main()
