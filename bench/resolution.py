#!/usr/bin/env python3
"""Resolution suite: small programs with their call graph and definitions
written by hand from the languages' semantics, scored against evident.

Usage: python3 bench/resolution.py [--no-build] [--verbose] [--only SUBSTRING]

Each `bench/resolution/<language>/<category>.cases` file holds cases:

    ## title
    -- m.py                      a file of the case's repository
    ...source...
    -- edges                     every call edge into repository definitions
    m.py:g -> m.py:Foo.m         caller -> callee, as `path:Chain.in.file`
    -- defs                      definitions at positions
    m.py:9 m -> m.py:Foo.m       `path:line token[#nth]` -> answers
    m.py:5 b -> m.py:4           an answer may be a line (locals, parameters)
    m.py:3 zz -> none            nothing in the repository defines it

A call at a file's top level has the caller `path:<module>`; one in a class
body or a field's initializer, the class. Calling a class
runs its constructor: the edge goes to `Class.__init__` (`Class.constructor`,
Java's `Class.Class`, through the bases where constructors are inherited) and
to the class itself only when no constructor is defined in the repository.

Scoring:
  - edges: every edge evident stores (any confidence) against the expected
    set: precision P and recall R per category; P- and R- count only the
    edges that are not `name_only` (in cases this small a unique name makes a
    name-only guess right far more often than in real code);
  - defs: an assertion holds when the set of answers evident gives that are
    not labelled `name_only` equals the expected set (`none`: the empty set).
Expectations are never read from evident's output; the cases are never
tuned one by one.
"""
import argparse
import collections
import json
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, ROOT)

CASES = index_bench.ROOT / "bench" / "resolution"


class Case:
    def __init__(self, language, category, title):
        self.language, self.category, self.title = language, category, title
        self.files = {}
        self.edges = set()
        self.defs = []  # (path, line, token, nth, expected set)


def parse(path):
    language, category = path.parent.name, path.stem
    cases, case, section = [], None, None
    for raw in path.read_text().splitlines():
        if raw.startswith("## "):
            case = Case(language, category, raw[3:].strip())
            cases.append(case)
            section = None
        elif raw.startswith("-- "):
            section = raw[3:].strip()
            if section not in ("edges", "defs"):
                case.files[section] = []
        elif case is None or section is None:
            continue
        elif section == "edges":
            line = raw.split("#", 1)[0].strip()
            if line:
                caller, callee = (s.strip() for s in line.split("->"))
                case.edges.add((caller, callee))
        elif section == "defs":
            line = raw.split("  #", 1)[0].strip()
            if line:
                where, answers = (s.strip() for s in line.split("->"))
                position, token = where.split()
                file, lineno = position.rsplit(":", 1)
                token, _, nth = token.partition("#")
                expected = set() if answers == "none" else {a.strip() for a in answers.split("|")}
                case.defs.append((file, int(lineno), token, int(nth or 1), expected))
        else:
            case.files[section].append(raw)
    return cases


def column_of(text, token, nth):
    """1-based column of the nth whole-word occurrence of `token` in `text`."""
    matches = list(re.finditer(rf"(?<![A-Za-z0-9_$]){re.escape(token)}(?![A-Za-z0-9_$])", text))
    if len(matches) < nth:
        raise SystemExit(f"token {token!r} #{nth} not found in {text!r}")
    return matches[nth - 1].start() + 1


def chain(db, symbol_id):
    """`path:Chain.in.file` of a definition: its qualified name less the module."""
    row = db.execute(
        "SELECT f.path, f.module, s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.id = ?", (symbol_id,)).fetchone()
    path, module, qualified = row
    rest = qualified[len(module):] if module and qualified.startswith(module) else qualified
    rest = re.sub(r"^(::|\.|/)", "", rest)
    return f"{path}:{re.sub(r'::|/', '.', rest)}"


def evident_edges(db):
    edges = set()
    plain = set()
    rows = db.execute(
        "SELECT c.enclosing_id, f.path, e.callee_id, e.confidence FROM edges e"
        " JOIN calls c ON c.id = e.call_id JOIN files f ON f.id = c.file_id")
    for enclosing, path, callee, confidence in rows.fetchall():
        caller = chain(db, enclosing) if enclosing is not None else f"{path}:<module>"
        edge = (caller, chain(db, callee))
        edges.add(edge)
        if confidence != "name_only":
            plain.add(edge)
    return edges, plain


def evident_def(evident, repo, db, file, line, column):
    out = subprocess.run([evident, "def", f"{file}:{line}:{column}", "--json"], cwd=repo,
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"evident def failed: {out.stderr}")
    answers = set()
    for record in json.loads(out.stdout or "[]"):
        if record.get("confidence") == "name_only":
            continue
        found = db.execute(
            "SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE f.path = ? AND s.start_line = ? AND s.name = ?",
            (record["path"], record["start_line"], record["name"])).fetchone()
        answers.add(chain(db, found[0]) if found else f"{record['path']}:{record['start_line']}")
    return answers


def matches(answers, expected, db_lines):
    """Answers equal expected, where an expected line also matches a definition on that line."""
    normalized = set()
    for a in answers:
        hit = next((e for e in expected if e == a or db_lines.get(a) == e), a)
        normalized.add(hit)
    return normalized == expected


def run_case(evident, case, verbose):
    with tempfile.TemporaryDirectory() as tmp:
        repo = pathlib.Path(tmp)
        for name, lines in case.files.items():
            target = repo / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(lines) + "\n")
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        subprocess.run([evident, "index", "."], cwd=repo, check=True, capture_output=True)
        db = sqlite3.connect(repo / ".evident" / "index.db")
        got, plain = evident_edges(db)
        # Every definition's `path:line`, so that a line expectation matches it too.
        db_lines = {}
        for sid, path, start in db.execute(
                "SELECT s.id, f.path, s.start_line FROM symbols s JOIN files f ON f.id = s.file_id"):
            db_lines[chain(db, sid)] = f"{path}:{start}"
        defs = []
        for file, line, token, nth, expected in case.defs:
            text = case.files[file][line - 1]
            answers = evident_def(evident, repo, db, file, line, column_of(text, token, nth))
            ok = matches(answers, expected, db_lines)
            defs.append(ok)
            if verbose and not ok:
                print(f"  def {case.title}: {file}:{line} {token} -> {sorted(answers) or 'none'}"
                      f" (expected {sorted(expected) or 'none'})")
        db.close()
    if verbose:
        for edge in sorted(got - case.edges):
            print(f"  extra   {case.title}: {edge[0]} -> {edge[1]}")
        for edge in sorted(case.edges - got):
            print(f"  missing {case.title}: {edge[0]} -> {edge[1]}")
        for edge in sorted((case.edges & got) - plain):
            print(f"  by name {case.title}: {edge[0]} -> {edge[1]}")
    return got, plain, defs


def ratio(a, b):
    return a / b if b else float("nan")


def main():
    args, evident = index_bench.setup(lambda p: (p.add_argument("--verbose", action="store_true"),
                                                 p.add_argument("--only", default="")))
    cases = [c for f in sorted(CASES.glob("*/*.cases")) for c in parse(f)]
    cases = [c for c in cases if args.only in f"{c.language}/{c.category}/{c.title}"]
    totals = collections.defaultdict(lambda: collections.Counter())
    for case in cases:
        got, plain, defs = run_case(evident, case, args.verbose)
        for key in (f"{case.language}/{case.category}", f"{case.language}/*", "all"):
            t = totals[key]
            t["cases"] += 1
            t["expected"] += len(case.edges)
            t["reported"] += len(got)
            t["correct"] += len(got & case.edges)
            t["reported_plain"] += len(plain)
            t["correct_plain"] += len(plain & case.edges)
            t["defs"] += len(defs)
            t["defs_ok"] += sum(defs)
    print(f"{'category':26} {'cases':>5} {'edges':>5} {'P':>5} {'R':>5} {'P-':>5} {'R-':>5}"
          f" {'defs':>5} {'held':>5}")
    for key in sorted(totals, key=lambda k: (k == "all", k.endswith("/*"), k)):
        t = totals[key]
        print(f"{key:26} {t['cases']:5} {t['expected']:5}"
              f" {ratio(t['correct'], t['reported']):5.2f} {ratio(t['correct'], t['expected']):5.2f}"
              f" {ratio(t['correct_plain'], t['reported_plain']):5.2f}"
              f" {ratio(t['correct_plain'], t['expected']):5.2f}"
              f" {t['defs']:5} {ratio(t['defs_ok'], t['defs']):5.2f}")


if __name__ == "__main__":
    main()
