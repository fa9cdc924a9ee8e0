#!/usr/bin/env python3
"""`evident def` against a published name-binding suite: the test files of
GitHub's stack-graphs language definitions (Python, JavaScript, TypeScript,
Java), which assert for each marked reference the lines of the definitions
it binds to (`# ^ defined: 3, 15`), or that it binds to nothing
(`# ^ defined:`).

Usage: python3 bench/name_binding.py [--only LANG[,LANG]] [--verbose]
                                     [--no-build | --evident BIN]

The suite ships inside the crates `tree-sitter-stack-graphs-{python,
javascript,typescript,java}` (pinned below), fetched from crates.io with
`cargo fetch` into bench/.work/name_binding. Each test file is read as
stack-graphs' own runner reads it (`tree_sitter_stack_graphs::test`): a
`--- path: NAME ---` line starts a fragment, every fragment is a file of
its own that keeps the test's line numbers (the lines before it blanked),
and an assertion's caret marks a column of the last line above it that is
not an assertion. Files ending `.skip` are left out, as the runner does.

Each test becomes a small repository; evident indexes it and answers
`evident def --stdin` at every caret. An answer (not a `name_only`
candidate) stands for the line in its span where its name is first
written (a module: the file). Scored two ways:
- **right**: the answers' lines are exactly the asserted lines, the rule
  of stack-graphs' runner (`stack_graphs::assert`); "binds to nothing" is
  right when evident answers nothing in the repository;
- **first right**: evident's first answer is one of the asserted lines (or
  it answers nothing, for nothing).

Split by the suite's language, as corpora: half A (JavaScript, Python) is
what rules may be drawn from; half B (TypeScript, Java) is held out. The
kind of a position is read from the test's text: in an import statement,
binding to nothing, a definition or class (the asserted line declares a
function, method or class of that name), or a variable, parameter or field.
"""
import collections
import json
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, WORK)

WORK = index_bench.WORK / "name_binding"
SUITES = {
    # language: (crate, version, half, extensions)
    "javascript": ("tree-sitter-stack-graphs-javascript", "0.3.0", "A", (".js", ".jsx", ".mjs", ".cjs")),
    "python": ("tree-sitter-stack-graphs-python", "0.3.0", "A", (".py",)),
    "typescript": ("tree-sitter-stack-graphs-typescript", "0.4.0", "B", (".ts", ".tsx")),
    "java": ("tree-sitter-stack-graphs-java", "0.5.0", "B", (".java",)),
}
PATH_LINE = re.compile(r"---\s*path:\s*([^\s]+)\s*---")
GLOBAL_LINE = re.compile(r"---\s*global:\s*([^\s]+)=([^\s]+)\s*---")
ASSERTION = re.compile(r"(\^)\s*(\w+):\s*([^\s,]+(?:\s*,\s*[^\s,]+)*)?")
DECLARES = re.compile(r"\b(def|class|function|interface|enum|record|namespace|module|type)\b")
IMPORT_LINE = re.compile(r"^\s*(import\b|from\s+\S+\s+import\b|export\s.*\bfrom\b)|\brequire\s*\(")


def fetch_suites():
    """The crates' sources, by `cargo fetch` and `cargo metadata`."""
    probe = WORK / "probe"
    (probe / "src").mkdir(parents=True, exist_ok=True)
    (probe / "src" / "lib.rs").write_text("")
    deps = "\n".join(f'{crate} = "={version}"' for crate, version, _, _ in SUITES.values())
    (probe / "Cargo.toml").write_text(
        f'[package]\nname = "probe"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n\n[dependencies]\n{deps}\n')
    subprocess.run(["cargo", "fetch", "--quiet"], cwd=probe, check=True)
    out = subprocess.run(["cargo", "metadata", "--format-version", "1"], cwd=probe, check=True,
                         capture_output=True, text=True)
    roots = {p["name"]: pathlib.Path(p["manifest_path"]).parent for p in json.loads(out.stdout)["packages"]}
    return {language: roots[crate] / "test" for language, (crate, *_rest) in SUITES.items()}


def read_test(path, default_name):
    """(fragments, assertions): fragments as {file name: text}, each keeping
    the test's line numbers; assertions as (file, line, column, targets),
    0-based line and column, targets as [(file, line)]."""
    lines = path.read_text().split("\n")
    has_fragments = any(PATH_LINE.search(line) for line in lines)
    fragments, owner = {}, []
    current = None if has_fragments else default_name
    if current:
        fragments[current] = []
    for number, line in enumerate(lines):
        m = PATH_LINE.search(line)
        if m:
            current = m.group(1)
            fragments[current] = [""] * (number + 1)
        elif current is not None:
            fragments[current].append("" if GLOBAL_LINE.search(line) else line)
        owner.append(current)
    assertions = []
    for name, text in fragments.items():
        last = None
        for number, line in enumerate(text):
            m = ASSERTION.search(line)
            if not m:
                last = number
                continue
            if m.group(2) != "defined" or last is None:
                continue
            targets = [(owner[int(n) - 1], int(n) - 1) for n in re.findall(r"\d+", m.group(3) or "")]
            assertions.append((name, last, m.start(1), targets))
    return {name: "\n".join(text) + "\n" for name, text in fragments.items()}, assertions


def name_line(texts, answer):
    """The 0-based line of an answer: where its name is first written in its span."""
    lines = texts.get(answer["path"], "").split("\n")
    word = re.compile(rf"(?<![\w$]){re.escape(answer.get('name') or '')}(?![\w$])")
    for line in range(answer["start_line"] - 1, min(answer["end_line"], len(lines))):
        if answer.get("name") and word.search(lines[line]):
            return line
    return answer["start_line"] - 1


def kind_of(texts, file, line, column, targets):
    source = texts[file].split("\n")
    if not targets:
        return "binds to nothing"
    if IMPORT_LINE.search(source[line]):
        return "in an import"
    m = re.match(r"[\w$]+", source[line][column:])
    word = m.group(0) if m else ""
    for target_file, target_line in targets:
        text = texts.get(target_file, "").split("\n")
        declared = text[target_line] if target_line < len(text) else ""
        if DECLARES.search(declared) and re.search(rf"(?<![\w$]){re.escape(word)}(?![\w$])", declared):
            return "definition or class"
    return "variable, parameter or field"


def judge(texts, answers, targets):
    answers = [a for a in answers if a.get("confidence") != "name_only"]
    expected = set(targets)

    def place(a):
        return (a["path"], None) if a.get("kind") == "module" else (a["path"], name_line(texts, a))

    def matches(a, target):
        path, line = place(a)
        return path == target[0] and (line is None or line == target[1])

    if not expected:
        return not answers, not answers
    every = all(any(matches(a, t) for t in expected) for a in answers)
    covered = all(any(matches(a, t) for a in answers) for t in expected)
    first = bool(answers) and any(matches(answers[0], t) for t in expected)
    return bool(answers) and every and covered, first


def run_test(evident, path, language, extensions, tally, misses, verbose):
    test_name = f"{language}/{path.name}"
    default = "test" + (path.suffix if path.suffix in extensions else extensions[0])
    texts, assertions = read_test(path, default)
    if not assertions:
        return
    repo = WORK / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    for name, text in texts.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    # A repository of its own: bench/.work lies inside this one.
    subprocess.run(["git", "init", "-q", "."], cwd=repo, check=True)
    subprocess.run([evident, "index", "--quiet", "."], cwd=repo, check=True, capture_output=True)
    positions = [f"{f}:{line + 1}:{column + 1}" for f, line, column, _ in assertions]
    out = subprocess.run([evident, "def", "--stdin"], cwd=repo, input="\n".join(positions) + "\n",
                         capture_output=True, text=True)
    answers = {}
    for line in out.stdout.splitlines():
        record = json.loads(line)
        answers[record["position"]] = record.get("results", [])
    half = SUITES[language][2]
    for position, (file, line, column, targets) in zip(positions, assertions):
        right, first = judge(texts, answers.get(position, []), targets)
        kind = kind_of(texts, file, line, column, targets)
        keys = [(language, half, kind), (language, half, "all"), ("every language", half, "all"),
                ("every language", "A+B", "all")]
        for key in keys:
            tally[key, "n"] += 1
            tally[key, "right"] += right
            tally[key, "first"] += first
        if verbose and not right:
            got = [(a["path"], name_line(texts, a) + 1, a.get("name"), a.get("confidence", ""))
                   for a in answers.get(position, [])]
            word = re.match(r"[\w$]*", texts[file].split("\n")[line][column:]).group(0)
            misses.append(f"  {test_name} {position} {word} [{kind}]: "
                          f"evident {got} expected {[(f, n + 1) for f, n in targets]}")


def main():
    def configure(parser):
        parser.add_argument("--only", help="comma-separated languages")
        parser.add_argument("--verbose", action="store_true", help="print every position evident gets wrong")
    args, evident = index_bench.setup(configure)
    suites = fetch_suites()
    tally, misses = collections.Counter(), []
    for language, root in suites.items():
        if args.only and language not in args.only.split(","):
            continue
        extensions = SUITES[language][3]
        tests = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in extensions)
        for path in tests:
            run_test(evident, path, language, extensions, tally, misses, args.verbose)
        print(f"{language}: {len(tests)} test files", flush=True)
    print("\n".join(misses))
    print(f"\n  {'language':<15} {'half':<4} {'kind':<30} {'n':>5} {'right':>7} {'first right':>12}")
    for key in sorted({k for k, _ in tally}):
        n = tally[key, "n"]
        print(f"  {key[0]:<15} {key[1]:<4} {key[2]:<30} {n:>5} {tally[key, 'right'] / n:>7.1%} "
              f"{tally[key, 'first'] / n:>12.1%}")


if __name__ == "__main__":
    main()
