#!/usr/bin/env python3
"""`evident def` and the call graph against compiler indexers (SCIP), on
every identifier occurrence of real projects.

Usage: python3 bench/scip_oracle.py [--only NAME[,NAME]] [--sample N] [--seed S]
                                    [--verbose KIND] [--no-build | --evident BIN]

Installs `bench/scip_oracle/package.json` (pinned, with its lockfile:
scip-typescript 0.4.0, scip-python 0.6.6) into bench/.work/scip_oracle,
fetches each corpus from its registry (npm tarballs, PyPI sdists), runs the
compiler indexer on it, and reads the `index.scip` with the protobuf classes
scip-typescript ships (`bench/scip_oracle/dump.js`).

Identifiers: every occurrence whose text is an identifier. The oracle's
answer is where SCIP defines the occurrence's symbol. A symbol of another
package (the standard library, a dependency) is "outside": evident agrees when
it names no definition in the repository. A symbol of the project's own
package that no document defines (scip-python names some relative module
paths so) has no answer and is left out, counted. evident's answer is
`evident def --stdin` at the same position; it agrees when one of its
answers (not a `name_only` candidate) is the oracle's definition: same file,
the definition's line inside the answer's lines, same name (a module: same
file). Reported per identifier kind, by the SCIP symbol's descriptor.

Call edges: every call site by the language's own parser (Python `ast`, the
TypeScript parser: `bench/scip_oracle/calls.js`), the callee's last
identifier looked up in SCIP. evident's edges are read from its index (the
calls on that line with that callee name). Precision: edges that name the
oracle's definition (or, for a constructor, its class, or the base class
whose constructor it inherits, by SCIP's resolution of the class's
header; for a Python `@overload` signature, the implementation that the
name is bound to at run time, PEP 484), by confidence.
Recall: call sites whose oracle answer is in the repository with an edge
that names it, `name_only` not counted. A call of a parameter or a local
(`cls()`, `func()`) is left out, counted: SCIP names the binding there, not
a callee.

Half A is what resolution was tuned on; half B is held out.
"""
import ast
import collections
import json
import pathlib
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, ROOT, WORK)

ORACLE = index_bench.ROOT / "bench" / "scip_oracle"
WORK = index_bench.WORK / "scip_oracle"
IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
CONSTRUCTORS = {"__init__", "__new__", "constructor"}

# (name, language, half, registry, package spec, source paths inside the package)
CORPORA = [
    ("rxjs", "typescript", "A", "npm", "rxjs@7.8.2", ["src"]),
    ("mobx", "typescript", "A", "npm", "mobx@6.13.5", ["src"]),
    ("immer", "typescript", "A", "npm", "immer@10.1.1", ["src"]),
    ("express", "javascript", "A", "npm", "express@4.21.2", ["lib", "index.js"]),
    ("flask", "python", "A", "pypi", "flask==3.0.3", ["src/flask"]),
    ("requests", "python", "A", "pypi", "requests==2.32.3", ["src/requests"]),
    ("query-core", "typescript", "B", "npm", "@tanstack/query-core@5.59.0", ["src"]),
    ("redux-toolkit", "typescript", "B", "npm", "@reduxjs/toolkit@2.3.0", ["src"]),
    ("mocha", "javascript", "B", "npm", "mocha@10.7.3", ["lib", "index.js"]),
    ("click", "python", "B", "pypi", "click==8.1.7", ["src/click"]),
    ("httpx", "python", "B", "pypi", "httpx==0.27.2", ["httpx"]),
]

TSCONFIG = {"compilerOptions": {"target": "es2020", "module": "commonjs", "moduleResolution": "node",
                                "allowJs": True, "noEmit": True, "lib": ["es2020", "dom"]},
            "include": ["**/*"]}


def install():
    WORK.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ORACLE / name, WORK / name)
    if not (WORK / "node_modules" / ".bin" / "scip-python").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=WORK, check=True)
    return WORK / "node_modules"


def fetch(corpus):
    """The corpus's sources in a directory of their own (the package's
    directory name kept for Python, so that its absolute imports resolve)."""
    name, language, _, registry, spec, sources = corpus
    root = WORK / "corpora" / name
    if root.is_dir():
        return root
    downloads = WORK / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if registry == "npm":
        out = subprocess.run(["npm", "pack", "--silent", spec], cwd=downloads, check=True,
                             capture_output=True, text=True).stdout.split()[-1]
        archive, top = downloads / out, "package"
    else:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
                        ":all:", spec, "-d", str(downloads)], check=True)
        package, version = spec.split("==")
        archive = next(downloads.glob(f"{package}-{version}.tar.gz"))
        top = f"{package}-{version}"
    unpacked = WORK / "unpacked" / name
    shutil.rmtree(unpacked, ignore_errors=True)
    unpacked.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="data")
    staging = root.with_suffix(".part")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for source in sources:
        src = unpacked / top / source
        target = staging / (pathlib.Path(source).name if language == "python" else source)
        if src.is_dir():
            shutil.copytree(src, target)
        elif src.exists():
            shutil.copy(src, target)
    if language != "python":
        (staging / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    staging.rename(root)
    return root


def scip_index(corpus, root, modules):
    """Runs the compiler indexer; the index is kept outside the corpus."""
    name, language = corpus[0], corpus[1]
    out = WORK / f"{name}.scip"
    if not out.exists():
        if language == "python":
            command = [str(modules / ".bin" / "scip-python"), "index", ".", "--project-name", name,
                       "--output", str(out)]
        else:
            command = [str(modules / ".bin" / "scip-typescript"), "index", "--output", str(out)]
        subprocess.run(command, cwd=root, check=True, capture_output=True)
    dumped = subprocess.run(["node", str(ORACLE / "dump.js"), str(out)], check=True, capture_output=True,
                            text=True, env={"NODE_PATH": str(modules), "PATH": subprocess.os.environ["PATH"]})
    return json.loads(dumped.stdout)


def project_package(symbol):
    """The symbol's `manager name` (its package), or None for a local."""
    parts = symbol.split(" ")
    return None if parts[0] == "local" else (parts[1], parts[2])


def symbol_kind(symbol):
    """What the symbol is, by its last SCIP descriptor."""
    if symbol.startswith("local "):
        return "local"
    descriptor = symbol.split(" ", 4)[-1]
    if descriptor.endswith(")") and not descriptor.endswith("()."):
        return "parameter"
    if descriptor.endswith("]"):
        return "type parameter"
    if descriptor.endswith("/") or descriptor.endswith("__init__:"):
        return "module"
    if descriptor.endswith("#"):
        return "class or type"
    if descriptor.endswith("()."):
        return "function or method"
    if descriptor.endswith("."):
        owner = descriptor[:-1].rstrip("`")
        inside_type = "#" in descriptor[:-1].rsplit("/", 1)[-1]
        return "field" if inside_type and owner else "variable"
    return "other"


def import_lines(language, path, text):
    """The lines of import statements (0-based)."""
    lines = set()
    if language == "python":
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return lines
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                lines.update(range(node.lineno - 1, node.end_lineno))
        return lines
    inside = False
    for number, line in enumerate(text.split("\n")):
        stripped = line.strip()
        starts = re.match(r"^(import\b|export\s+(\*|\{[^}]*\}?|type\s*\{)[^;]*\bfrom\b|export\s*\{\s*$)", stripped)
        if starts or inside or re.search(r"\brequire\(\s*['\"]", line):
            lines.add(number)
            inside = (starts or inside) and not re.search(r"['\"]\s*;?\s*$", stripped)
    return lines


class Tally:
    def __init__(self):
        self.counts = collections.Counter()

    def add(self, key, agree, exact):
        self.counts[key, "n"] += 1
        self.counts[key, "agree"] += agree
        self.counts[key, "exact"] += exact
        self.counts[key, "exact_agree"] += exact and agree


def answers_match(record, gold):
    path, line, name = gold
    if record.get("kind") == "module":
        return record["path"] == path
    return record["path"] == path and record["name"] == name and record["start_line"] <= line + 1 <= record["end_line"]


def occurrences_of(dump, root, language):
    """(path, line, start, word, kind, gold) for each identifier occurrence;
    gold is a set of (path, line, name), or "outside"; None: no answer."""
    texts = {}
    for doc in dump["documents"]:
        path = doc["path"]
        text = (root / path).read_text(errors="replace")
        lines = text.split("\n")
        imports = import_lines(language, path, text)
        texts[path] = lines
        for o in doc["occurrences"]:
            if o["line"] >= len(lines):
                continue
            word = lines[o["line"]][o["start"]:o["end"]]
            if not IDENTIFIER.match(word):
                continue
            yield path, o, word, imports, lines


def gold_of(dump, path, symbol, texts_of, own_packages):
    key = f"{path}\u0000{symbol}" if symbol.startswith("local ") else symbol
    sites = dump["definitions"].get(key)
    if sites:
        gold = set()
        for p, line, start in sites:
            lines = texts_of(p)
            m = re.match(r"[A-Za-z_$][A-Za-z0-9_$]*", lines[line][start:]) if line < len(lines) else None
            gold.add((p, line, m.group(0) if m else ""))
        return gold
    package = project_package(symbol)
    if package is None or package in own_packages:
        return None
    return "outside"


def evident_defs(evident, root, positions):
    out = subprocess.run([evident, "def", "--stdin"], cwd=root, input="\n".join(positions) + "\n",
                         check=True, capture_output=True, text=True)
    answers = {}
    for line in out.stdout.splitlines():
        record = json.loads(line)
        answers[record["position"]] = record.get("results", [])
    return answers


def evaluate_identifiers(evident, corpus, root, dump, args, tally, unanswered, misses):
    name, language, half = corpus[0], corpus[1], corpus[2]
    own = {project_package(s) for s in dump["definitions"] if "\u0000" not in s}
    cache = {}

    def texts_of(p):
        if p not in cache:
            cache[p] = (root / p).read_text(errors="replace").split("\n")
        return cache[p]

    drawn = []
    for path, o, word, imports, lines in occurrences_of(dump, root, language):
        gold = gold_of(dump, path, o["symbol"], texts_of, own)
        if gold is None:
            unanswered[name] += 1
            continue
        if o["definition"]:
            kind = "definition"
        elif gold == "outside":
            kind = "outside"
        elif o["line"] in imports:
            kind = "import"
        else:
            kind = symbol_kind(o["symbol"])
        drawn.append((path, o["line"], o["start"], word, kind, gold))
    if args.sample and len(drawn) > args.sample:
        drawn = random.Random(args.seed).sample(drawn, args.sample)
    positions = [f"{p}:{line + 1}:{start + 1}" for p, line, start, *_ in drawn]
    answers = evident_defs(evident, root, positions)
    for position, (path, line, start, word, kind, gold) in zip(positions, drawn):
        records = [r for r in answers.get(position, []) if r.get("confidence") != "name_only"]
        exact = bool(records) and all(r.get("confidence", "exact") == "exact" for r in records)
        if gold == "outside":
            agree = not records
        else:
            agree = any(answers_match(r, g) for r in records for g in gold)
        for key in ((language, half, kind), (language, half, "all")):
            tally.add(key, agree, exact)
        if not agree and args.verbose in (kind, "all"):
            misses.append(f"  {name} {position} {word} [{kind}{', exact' if exact else ''}]: evident "
                          f"{[(r['path'], r['start_line'], r['name']) for r in records]} scip "
                          f"{gold if gold == 'outside' else sorted(gold)}")


def python_call_sites(root, path):
    text = (root / path).read_text(errors="replace")
    lines = text.split("\n")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    sites = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            line, col_bytes, name = func.lineno - 1, func.col_offset, func.id
        elif isinstance(func, ast.Attribute) and func.end_lineno is not None:
            line, name = func.end_lineno - 1, func.attr
            col_bytes = func.end_col_offset - len(name.encode())
        else:
            continue
        start = len(lines[line].encode()[:col_bytes].decode(errors="replace"))
        sites.append({"path": path, "line": line, "start": start, "name": name, "call_line": node.lineno - 1})
    return sites


def call_sites(corpus, root, dump, modules):
    paths = [doc["path"] for doc in dump["documents"]]
    if corpus[1] == "python":
        return [site for p in paths for site in python_call_sites(root, p)]
    out = subprocess.run(["node", str(ORACLE / "calls.js"), str(root), *paths], check=True, capture_output=True,
                         text=True, env={"NODE_PATH": str(modules), "PATH": subprocess.os.environ["PATH"]})
    return json.loads(out.stdout)


def evident_edges(root):
    """(path, line, callee name) → [(confidence, target path, start, end, name, parent start, parent end, parent name)]"""
    db = sqlite3.connect(f"file:{root / '.evident' / 'index.db'}?mode=ro", uri=True)
    edges = collections.defaultdict(list)
    for row in db.execute("""
            SELECT f.path, c.line, c.callee_name, e.confidence, tf.path, s.start_line, s.end_line, s.name,
                   p.start_line, p.end_line, p.name
            FROM calls c JOIN files f ON f.id = c.file_id
            JOIN edges e ON e.call_id = c.id JOIN symbols s ON s.id = e.callee_id
            JOIN files tf ON tf.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id"""):
        edges[row[0], row[1], row[2]].append(row[3:])
    return edges


def edge_matches(edge, gold, runs):
    _, path, start, end, name, p_start, p_end, p_name = edge
    for g_path, g_line, g_name in gold:
        if path == g_path and name == g_name and start <= g_line + 1 <= end:
            return True
        # `Widget()` / `new Widget()`: the oracle names the class, evident the
        # constructor the call runs: the class's own, or the one it inherits.
        if name in CONSTRUCTORS and p_start is not None:
            for a_path, a_line, a_name in runs(g_path, g_line, g_name):
                if path == a_path and p_name == a_name and p_start <= a_line + 1 <= p_end:
                    return True
    return False


def constructor_owners(dump, texts_of):
    """For a class defined at (path, line): the classes whose constructor a
    call of it may run, by SCIP's own resolution: itself, and when it
    defines no constructor, the first class up its bases (the names on its
    header line, `class InvalidURL(RequestException):`) that does."""
    on_line = collections.defaultdict(list)
    for doc in dump["documents"]:
        for o in doc["occurrences"]:
            on_line[doc["path"], o["line"]].append(o)
    defined = dump["definitions"]
    own_constructor = ("__init__().", "__new__().", "`<constructor>`().")

    def named(path, line):
        return [o for o in on_line.get((path, line), [])
                if o["definition"] and symbol_kind(o["symbol"]) == "class or type"]

    def where(symbol):
        for p, l, start in defined.get(symbol, []):
            lines = texts_of(p)
            m = re.match(r"[A-Za-z_$][A-Za-z0-9_$]*", lines[l][start:]) if l < len(lines) else None
            yield p, l, m.group(0) if m else ""

    def runs(path, line, name, depth=0):
        owners = [(path, line, name)]
        classes = named(path, line)
        if not classes or depth > 20:
            return owners
        symbol = classes[0]["symbol"]
        if any(symbol + c in defined for c in own_constructor):
            return owners
        after = classes[0]["start"]
        for o in on_line[path, line]:
            if o["definition"] or o["start"] <= after or symbol_kind(o["symbol"]) != "class or type":
                continue
            for base in where(o["symbol"]):
                owners.extend(runs(*base, depth + 1))
        return owners

    return runs


def overload_implementations(text):
    """0-based line of each `@overload` signature's name → the 0-based line
    of the undecorated `def` of the same name after it in the same block:
    what a call runs (PEP 484; SCIP names the first signature)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    implementations = {}
    for block in ast.walk(tree):
        statements = getattr(block, "body", [])  # a lambda's body is one expression
        if not isinstance(statements, list):
            continue
        body = [n for n in statements if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for i, stub in enumerate(body):
            if not any((d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")) == "overload"
                       for d in stub.decorator_list):
                continue
            for later in body[i + 1:]:
                if later.name == stub.name and not later.decorator_list:
                    implementations[stub.lineno - 1] = later.lineno - 1
                    break
    return implementations


def evaluate_calls(corpus, root, dump, modules, calls, misses, args):
    name, language, half = corpus[0], corpus[1], corpus[2]
    by_position = {}
    for doc in dump["documents"]:
        for o in doc["occurrences"]:
            by_position[doc["path"], o["line"], o["start"]] = o["symbol"]
    cache = {}

    def texts_of(p):
        if p not in cache:
            cache[p] = (root / p).read_text(errors="replace").split("\n")
        return cache[p]

    own = {project_package(s) for s in dump["definitions"] if "\u0000" not in s}
    edges = evident_edges(root)
    runs = constructor_owners(dump, texts_of)
    overloads = {}

    def overloads_of(p):
        if p not in overloads:
            overloads[p] = overload_implementations("\n".join(texts_of(p)))
        return overloads[p]

    key = (language, half)
    for site in call_sites(corpus, root, dump, modules):
        symbol = by_position.get((site["path"], site["line"], site["start"]))
        if symbol is None:
            continue
        gold = gold_of(dump, site["path"], symbol, texts_of, own)
        if gold is None:
            continue
        if language == "python" and gold != "outside":
            gold = gold | {(p, overloads_of(p)[line], n) for p, line, n in gold if line in overloads_of(p)}
        # A call of a parameter or a local (`cls()`, `func()`): SCIP names the
        # binding, not what is called, so it has no callee to compare.
        if symbol_kind(symbol) in ("local", "parameter"):
            calls[key, "through_binding"] += 1
            continue
        found = []
        for line in {site["line"] + 1, site["call_line"] + 1}:
            found += edges.get((site["path"], line, site["name"]), [])
        calls[key, "sites"] += 1
        in_repo = gold != "outside"
        calls[key, "gold_in_repo"] += in_repo
        recalled = False
        for edge in found:
            confidence = edge[0]
            right = in_repo and edge_matches(edge, gold, runs)
            calls[key, "edges", confidence] += 1
            calls[key, "right", confidence] += right
            if not right and confidence != "name_only" and args.verbose == "wrong-edges":
                misses.append(f"  {name} {site['path']}:{site['line'] + 1}:{site['start'] + 1} {site['name']}(): "
                              f"evident {confidence} {edge[1]}:{edge[2]} {edge[4]} scip "
                              f"{gold if gold == 'outside' else sorted(gold)}")
            recalled |= right and confidence != "name_only"
        calls[key, "recalled"] += in_repo and recalled
        if in_repo and not recalled and args.verbose == "calls":
            misses.append(f"  {name} {site['path']}:{site['line'] + 1}:{site['start'] + 1} {site['name']}(): "
                          f"evident {[(e[0], e[1], e[2], e[4]) for e in found]} scip {sorted(gold)}")


def report(tally, calls, unanswered):
    counts = tally.counts
    keys = sorted({k for (k, _) in counts})
    print("\nIdentifier occurrences: agreement of `evident def` with SCIP (n), and among answers all `exact`")
    print(f"  {'language':<11} {'half':<4} {'kind':<20} {'n':>6} {'agree':>7} {'exact n':>8} {'exact agree':>11}")
    for key in keys:
        language, half, kind = key
        n, exact = counts[key, "n"], counts[key, "exact"]
        print(f"  {language:<11} {half:<4} {kind:<20} {n:>6} {counts[key, 'agree'] / max(n, 1):>7.1%} "
              f"{exact:>8} {counts[key, 'exact_agree'] / max(exact, 1):>11.1%}")
    print(f"  occurrences SCIP gives no answer for (left out): {dict(unanswered)}")
    print("\nCall edges against SCIP: precision by confidence, recall without name_only")
    for key in sorted({k[0] for k in calls}):
        sites, gold = calls[key, "sites"], calls[key, "gold_in_repo"]
        line = f"  {key[0]:<11} {key[1]:<4} sites {sites:>6} (+{calls[key, 'through_binding']} through a binding), " \
               f"in repository {gold:>6}, " \
               f"recall {calls[key, 'recalled'] / max(gold, 1):.3f};"
        total_edges = total_right = 0
        for confidence in ("exact", "inferred", "name_only"):
            edges, right = calls[key, "edges", confidence], calls[key, "right", confidence]
            if confidence != "name_only":
                total_edges, total_right = total_edges + edges, total_right + right
            line += f" {confidence} {right}/{edges}"
        line += f"; precision without name_only {total_right / max(total_edges, 1):.3f}"
        print(line)


def main():
    def configure(parser):
        parser.add_argument("--only", help="comma-separated corpus names")
        parser.add_argument("--sample", type=int, default=0, help="at most N occurrences per corpus (0: all)")
        parser.add_argument("--seed", type=int, default=17)
        parser.add_argument("--verbose", help="print misses of this kind ('all', 'calls', 'wrong-edges')")
    args, evident = index_bench.setup(configure)
    modules = install()
    tally, calls, unanswered, misses = Tally(), collections.Counter(), collections.Counter(), []
    chosen = [c for c in CORPORA if not args.only or c[0] in args.only.split(",")]
    for corpus in chosen:
        root = fetch(corpus)
        dump = scip_index(corpus, root, modules)
        # Always from scratch: an index built by another build keeps that build's rows.
        subprocess.run([evident, "index", "--rebuild", "."], cwd=root, check=True, capture_output=True)
        evaluate_identifiers(evident, corpus, root, dump, args, tally, unanswered, misses)
        evaluate_calls(corpus, root, dump, modules, calls, misses, args)
        print(f"{corpus[0]} ({corpus[4]}, {corpus[1]}, half {corpus[2]}): {len(dump['documents'])} documents",
              flush=True)
    print("\n".join(misses))
    report(tally, calls, unanswered)


if __name__ == "__main__":
    main()
