#!/usr/bin/env python3
"""Localization: a commit message (or an issue-style text) as the query, its
parent as the tree; where are the changed files and functions? evident's
search against a plain Okapi BM25 over whole files, re-implemented here, on
the same records in one run, over every set in ../shared/eval/localization/.

Usage: python3 bench/localization.py [--no-build | --evident PATH] [--sets click,httpx,...]
       [--limit N] [--half A|B] [--all] [--written-only] [--embed-model minilm] [--variant 'LABEL=SEARCH OPTIONS' ...]
       [--no-written] [--no-long] [--save FILE]

Sets: the seven of `../shared/eval/localization/` (Python: click, httpx,
jinja; Rust: ripgrep, axum; JavaScript: express; Go: cobra) and the
issue-style texts of `bench/localization_written.jsonl`, written from a
record's diff before evident's results for it were looked at. By default only
records whose message names no changed function (`leaks_identifier: false`)
count; `--all` takes every record. `--limit N` takes the first N of each set.
Long messages, reported apart: each set's raw records (before curation) whose
message has over 50 words, less the curated ones, by the same leak rule.

Tuning and reporting (hold out by corpus): defaults were tuned on half A of
the TUNED sets only. The report gives, separately: that tuning half; half B
of the tuned sets; the held-out sets (every record); the written texts; and
per set and half, per query length, and per variant (the ablation).

Ranking files: evident's ranked list as a user gets it (every path it
returns, documents and tests included); the baseline ranks the files with
the set's source extensions. Functions: evident's `--group definition`
results in order; the baseline ranks the functions and methods that
universal-ctags finds, with the same BM25 over their lines. A function
matches a gold one when the file is the same and the last segment of the
name is (gold names outside Python come from a heuristic scan: see the
sets' README).
Metrics: file Acc@1/5/10 and MRR@10 (a gold file among the first k),
function Acc@5.

The baseline: whole files as documents, code-aware tokens (words, their
snake_case and camelCase parts, lowercased), k1 = 1.2, b = 0.75.
"""
import collections
import hashlib
import json
import math
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import index as index_bench  # noqa: E402  (setup, ROOT, WORK)

SHARED = index_bench.ROOT.parent / "shared" / "eval" / "localization"
WRITTEN = pathlib.Path(__file__).resolve().parent / "localization_written.jsonl"
K1, B = 1.2, 0.75
RESULTS = 100
EMBED = []  # `--embed-provider local --embed-model NAME`, from --embed-model

# Long messages: a set's raw records (`N.raw.jsonl`, every derived record
# before curation) whose message has more words than this and that the
# curated file does not hold; reported apart, as issue reports are long.
LONG_WORDS = 50

# name: (records file, source extensions of the set's language)
SETS = {
    "click": ("click.jsonl", (".py",)),
    "httpx": ("httpx.curated.jsonl", (".py",)),
    "jinja": ("jinja.curated.jsonl", (".py",)),
    "ripgrep": ("ripgrep.curated.jsonl", (".rs",)),
    "axum": ("axum.curated.jsonl", (".rs",)),
    "express": ("express.curated.jsonl", (".js", ".mjs", ".cjs", ".ts")),
    "cobra": ("cobra.curated.jsonl", (".go",)),
}
# The sets whose half A the defaults were tuned on; the others are held out whole.
TUNED = {"click", "ripgrep", "express"}

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
FUNCTION_KINDS = {"function", "method", "member", "func", "constructor"}


def tokens(text):
    out = []
    for word in WORD.findall(text):
        lower = word.lower()
        out.append(lower)
        parts = [p.lower() for piece in word.split("_") for p in CAMEL.findall(piece)]
        if len(parts) > 1:
            out.extend(p for p in parts if len(p) > 1)
    return out


class BM25:
    def __init__(self, docs):
        """`docs`: (key, text) pairs."""
        self.keys = [k for k, _ in docs]
        self.tfs = [collections.Counter(tokens(t)) for _, t in docs]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.avg = sum(self.lengths) / max(len(self.lengths), 1)
        df = collections.Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def rank(self, query):
        terms = collections.Counter(tokens(query))
        scores = []
        for i, tf in enumerate(self.tfs):
            norm = K1 * (1 - B + B * self.lengths[i] / self.avg)
            s = 0.0
            for t, qtf in terms.items():
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (K1 + 1) / (f + norm)
            if s > 0:
                scores.append((-s, self.keys[i]))
        scores.sort()
        return [k for _, k in scores]


def source_files(tree, extensions):
    skip = {".git", ".evident", "node_modules"}
    return sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*")
                  if p.suffix in extensions and p.is_file() and not skip & set(p.relative_to(tree).parts))


def ctags_functions(tree, paths):
    """((path, name), source lines) of every function and method universal-ctags finds; one
    without an end line (an older ctags, some languages) runs to the next tag of its file."""
    if not paths:
        return []
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+nKe", "-f", "-", "-L", "-"],
                         cwd=tree, input="\n".join(paths), capture_output=True, text=True)
    tags = collections.defaultdict(list)
    for line in out.stdout.splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") == "tag" and "line" in tag:
            tags[tag["path"]].append(tag)
    found = []
    for path, in_file in tags.items():
        lines = (tree / path).read_text(errors="replace").splitlines()
        starts = sorted({t["line"] for t in in_file})
        for tag in in_file:
            if tag.get("kind") not in FUNCTION_KINDS or tag["name"].startswith("AnonymousFunction"):
                continue
            end = tag.get("end") or next((s - 1 for s in starts if s > tag["line"]), len(lines))
            found.append(((path, tag["name"]), "\n".join(lines[tag["line"] - 1:end])))
    return found


def last_segment(name):
    """A qualname's last part, generic arguments dropped: `From<A<B>> for
    Router<S>::from` is `from` (each innermost `<...>` goes first, so what
    follows a generic is kept; a stray `<` or `>` of a cut header goes last)."""
    while True:
        stripped = re.sub(r"<[^<>]*>", "", name)
        if stripped == name:
            break
        name = stripped
    return re.split(r"\.|::", name)[-1].strip().strip("<>")


def evident_search(evident, tree, query, options):
    started = time.perf_counter()
    # `--` first: a report may begin with a flag it is about (`-z / --search-zip ...`).
    out = subprocess.run([evident, "search", "--json", "--limit", str(RESULTS), *EMBED, *options, "--", query],
                         cwd=tree, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        # A refused query (too long, say) finds nothing: that is what a user gets.
        print(f"  evident refused the query: {out.stderr.strip()[:200]}", file=sys.stderr)
        return None, [], [], elapsed
    hits = json.loads(out.stdout)
    files, functions = [], []
    for h in hits:
        if h["path"] not in files:
            files.append(h["path"])
        if h["kind"] in ("function", "method"):
            key = (h["path"], h["name"])
            if key not in functions:
                functions.append(key)
    return True, files, functions, elapsed


def score(files, functions, record):
    gold = set(record["gold_files"])
    gold_functions = {(g["file"], last_segment(g["qualname"])) for g in record["gold_functions"]}
    rank = next((i + 1 for i, f in enumerate(files[:10]) if f in gold), None)
    return {
        "mrr": 1 / rank if rank else 0.0,
        "acc1": float(bool(rank and rank <= 1)),
        "acc5": float(bool(rank and rank <= 5)),
        "acc10": float(bool(rank and rank <= 10)),
        "fn5": float(any((p, last_segment(n)) in gold_functions for p, n in functions[:5])),
    }


def half_of(record):
    if "half" in record:
        return record["half"]
    return "A" if hashlib.sha256(record["commit"].encode()).digest()[0] % 2 == 0 else "B"


def length_of(query):
    words = len(query.split())
    return "short (<= 12 words)" if words <= 12 else "medium (13-50)" if words <= 50 else "long (> 50)"


def leaks_identifier(record):
    """The curated files' rule: the message names a changed item (the last
    part of a gold qualname, as a whole word)."""
    if "leaks_identifier" in record:
        return record["leaks_identifier"]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", record["query"]))
    return any(last_segment(g["qualname"]) in words for g in record["gold_functions"])


def long_records(name, curated):
    """The set's raw records with a message over LONG_WORDS words, less the curated ones."""
    raw = SHARED / f"{name}.raw.jsonl"
    if not raw.exists():
        return []
    held = {r["commit"] for r in curated}
    records = [json.loads(line) for line in open(raw)]
    return [r for r in records if r["commit"] not in held and len(r["query"].split()) > LONG_WORDS]


def load_records(args):
    out = []
    chosen = args.sets.split(",") if args.sets else list(SETS)
    for name in [] if args.written_only else chosen:
        curated = [json.loads(line) for line in open(SHARED / SETS[name][0])]
        for long in (False, True):
            records = long_records(name, curated) if long else curated
            if long and args.no_long:
                continue
            records = [r for r in records if args.all or not leaks_identifier(r)]
            if args.limit:
                records = records[: args.limit]
            if args.half:
                records = [r for r in records if half_of(r) == args.half]
            for r in records:
                r["set"], r["written"], r["long"] = name, False, long
            out += records
    if not args.no_written and WRITTEN.exists():
        for line in open(WRITTEN):
            r = json.loads(line)
            if r["set"] in chosen:
                r["written"], r["long"] = True, False
                out.append(r)
    return out


def checkout(name, bundle, work):
    repo = work / name
    if not repo.exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(bundle), str(repo)], check=True)
        # An index from another build (another schema) is not this run's.
    shutil.rmtree(repo / ".evident", ignore_errors=True)
    return repo


def run_record(evident, repo, record, variants):
    subprocess.run(["git", "checkout", "-q", "-f", record["base_commit"]], cwd=repo, check=True)
    subprocess.run(["git", "clean", "-q", "-fdx", "-e", ".evident"], cwd=repo, check=True)
    subprocess.run([evident, "index", "--quiet", "."], cwd=repo, check=True, capture_output=True)
    if EMBED:
        subprocess.run([evident, "embed", *EMBED], cwd=repo, check=True, capture_output=True)
    result = {"set": record["set"], "commit": record["commit"], "half": half_of(record),
              "written": record["written"], "long": record["long"], "length": length_of(record["query"]),
              "scores": {},
              "latency": None}
    fn_options = ["--group", "definition"]
    result["latencies"] = {}
    for name, options in variants:
        answered, files, _, elapsed = evident_search(evident, repo, record["query"], options)
        result["latencies"][name] = elapsed
        if name == "evident":
            result["latency"] = elapsed
        definition = [*options, *fn_options] if "--group" not in options else None
        functions = evident_search(evident, repo, record["query"], definition)[2] if definition else []
        result["scores"][name] = {**score(files, functions, record), "refused": answered is None}
        # What was ranked, for reading failures from a saved run.
        result.setdefault("ranked", {})[name] = {"files": files[:10], "functions": functions[:20]}
    result["gold"] = {"files": record["gold_files"],
                      "functions": [[g["file"], last_segment(g["qualname"])] for g in record["gold_functions"]]}
    result["query"] = record["query"]
    extensions = SETS[record["set"]][1]
    paths = source_files(repo, extensions)
    file_rank = BM25([(p, (repo / p).read_text(errors="replace")) for p in paths]).rank(record["query"])
    fn_rank = BM25(ctags_functions(repo, paths)).rank(record["query"])
    result["scores"]["bm25 baseline"] = {**score(file_rank, fn_rank, record), "refused": False}
    return result


def table(title, results, names):
    if not results:
        return
    print(f"\n{title} ({len(results)} records)")
    width = max(16, *(len(n) + 2 for n in names))
    print(f"{'system':<{width}}{'Acc@1':>8}{'Acc@5':>8}{'Acc@10':>8}{'MRR@10':>8}{'fn Acc@5':>10}")
    for name in names:
        rows = [r["scores"][name] for r in results if name in r["scores"]]
        if not rows:
            continue
        mean = {k: sum(r[k] for r in rows) / len(rows) for k in ("acc1", "acc5", "acc10", "mrr", "fn5")}
        print(f"{name:<{width}}{mean['acc1']:>8.3f}{mean['acc5']:>8.3f}{mean['acc10']:>8.3f}"
              f"{mean['mrr']:>8.3f}{mean['fn5']:>10.3f}")


def report(results, variants):
    names = [v[0] for v in variants] + ["bm25 baseline"]
    honest = [r for r in results if not r["written"] and not r.get("long")]
    long = [r for r in results if r.get("long")]
    table("Tuning half: half A of the tuned sets (" + ", ".join(sorted(TUNED)) + ")",
          [r for r in honest if r["set"] in TUNED and r["half"] == "A"], names)
    table("Half B of the tuned sets", [r for r in honest if r["set"] in TUNED and r["half"] == "B"], names)
    table("Held-out sets, every record (" + ", ".join(s for s in SETS if s not in TUNED) + ")",
          [r for r in honest if r["set"] not in TUNED], names)
    table("Issue-style texts written from diffs (bench/localization_written.jsonl)",
          [r for r in results if r["written"]], names)
    table(f"Long messages (raw records over {LONG_WORDS} words, not curated): tuning half",
          [r for r in long if r["set"] in TUNED and r["half"] == "A"], names)
    table("Long messages: half B of the tuned sets",
          [r for r in long if r["set"] in TUNED and r["half"] == "B"], names)
    table("Long messages: held-out sets", [r for r in long if r["set"] not in TUNED], names)
    for length in ("short (<= 12 words)", "medium (13-50)", "long (> 50)"):
        table(f"Query length {length}, held-out sets and half B", [
            r for r in honest if r["length"] == length and (r["set"] not in TUNED or r["half"] == "B")], names)
    print("\nPer set and half (evident / bm25 baseline: Acc@1, Acc@5, MRR@10, fn Acc@5)")
    for name in SETS:
        for half in ("A", "B"):
            rows = [r for r in honest if r["set"] == name and r["half"] == half]
            if not rows:
                continue
            cells = []
            for system in ("evident", "bm25 baseline"):
                s = [r["scores"][system] for r in rows]
                cells.append(" ".join(f"{sum(x[k] for x in s) / len(s):.3f}" for k in ("acc1", "acc5", "mrr", "fn5")))
            tuned = "tuned" if name in TUNED and half == "A" else "held out"
            print(f"  {name:<8} {half} {len(rows):>4} ({tuned:>8})  {cells[0]}  /  {cells[1]}")
    latencies = collections.defaultdict(list)
    for r in results:
        if r["latency"] is not None:
            latencies[r["set"]].append(r["latency"] * 1000)
    for name, _ in variants[1:]:
        values = sorted(r["latencies"][name] * 1000 for r in results if name in r.get("latencies", {}))
        if values:
            print(f"\n{name}: latency p50 {statistics.median(values):.0f} ms, max {values[-1]:.0f} ms "
                  f"({len(values)} queries)")
    print("\nevident search latency per query (the process, start to exit), ms: p50 / p95")
    for name, values in latencies.items():
        values.sort()
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"  {name:<8} {statistics.median(values):7.1f} / {p95:7.1f}  ({len(values)} queries)")


def main():
    args, evident = index_bench.setup(lambda p: (
        p.add_argument("--all", action="store_true", help="count records whose message names a changed function too"),
        p.add_argument("--limit", type=int, help="only the first N records of each set (a quick look)"),
        p.add_argument("--sets", help="comma-separated set names (default: all)"),
        p.add_argument("--half", choices=["A", "B"], help="only this half's records (tuning: A of the tuned sets)"),
        p.add_argument("--no-written", action="store_true", help="leave out the written issue-style texts"),
        p.add_argument("--no-long", action="store_true",
                       help=f"leave out the long messages (raw records over {LONG_WORDS} words)"),
        p.add_argument("--written-only", action="store_true", help="only the written issue-style texts"),
        p.add_argument("--save", help="write every record's scores to this JSON file"),
        p.add_argument("--work", default=str(index_bench.WORK / "localization"),
                       help="where the checkouts live (one run at a time per folder)"),
        p.add_argument("--embed-model", help="embed each index with `--embed-provider local --embed-model "
                                             "NAME` (minilm: the model the default table is distilled from) "
                                             "and search with it"),
        p.add_argument("--variant", action="append", default=[], metavar="LABEL=OPTIONS",
                       help="also run `evident search OPTIONS` on the same index, reported as LABEL "
                            "(repeatable; for ablations: 'no mentions=--signal mentions=0')"),
    ))
    if args.embed_model:
        EMBED.extend(["--embed-provider", "local", "--embed-model", args.embed_model])
    variants = [("evident", [])] + [(label.strip(), options.split())
                                    for label, _, options in (v.partition("=") for v in args.variant)]
    records = load_records(args)
    results = []
    repos = {}
    for i, record in enumerate(records):
        name = record["set"]
        if name not in repos:
            repos[name] = checkout(name, SHARED / f"{name}.bundle", pathlib.Path(args.work))
        result = run_record(evident, repos[name], record, variants)
        results.append(result)
        mine, base = result["scores"]["evident"], result["scores"]["bm25 baseline"]
        print(f"{i + 1}/{len(records)} {name} {record['commit'][:8]} evident MRR {mine['mrr']:.2f} "
              f"baseline {base['mrr']:.2f}", file=sys.stderr)
    label = "every record" if args.all else "leaks_identifier: false"
    print(f"{len(records)} records ({label}); evident search (defaults: hybrid, --group file) and "
          "--group definition for functions")
    for name, options in variants[1:]:
        print(f"{name}: evident search {' '.join(options)}")
    refused = sum(s["refused"] for r in results for s in r["scores"].values())
    if refused:
        print(f"evident refused {refused} queries (each scored as finding nothing)")
    report(results, variants)
    if args.save:
        pathlib.Path(args.save).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
