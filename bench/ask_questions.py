#!/usr/bin/env python3
"""Writes bench/ask_unseen.json: questions for `evident ask` over eight
packages this project was never tuned on, two per language (Python, Rust,
JavaScript, Go), fetched from PyPI, crates.io, npm and Debian.

The expected answers come from universal-ctags (definitions), Python's `ast`
(Python function ranges, docstrings, imports), brace matching and grep
(other languages' function bodies, calls, imports), never from evident.
Subjects are picked so that the grep oracle is unambiguous: a name defined
once, long or compound enough not to be a standard-library method, with one
to three callers or users. Each shape is asked in four or more wordings
(terse, wordy, with a path, with a qualified name, described without the
name), rotating over the subjects.

Half A (packaging, textwrap, commander, pflag) is the half tuned on; half B
(pluggy, humantime, qs, go-cmp) is held out. `bench/agent.py --questions
--set unseen` runs the file.

    python3 bench/ask_questions.py            # fetches, then rewrites the JSON
"""

import ast
import json
import pathlib
import random
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ask_corpora  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "ask_unseen.json"
CALLABLE = {"function", "member", "method", "func"}
TYPES = {"class", "struct", "enum", "interface", "type", "trait", "typedef"}
KEYWORDS = set("if for while return match fn func function switch catch super new typeof sizeof "
               "elif and or not in is lambda print assert with except raise yield await async "
               "def class import from Some Ok Err Box Vec String len make append panic arguments".split())
LINE_COMMENT = {"py": "#", "rs": "//", "js": "//", "go": "//"}


def strong_name(name):
    """Long or compound enough that grep finds this project's uses, not a library's."""
    return not name.startswith("__") and (
        ("_" in name.strip("_")) or re.search(r"[a-z][A-Z]", name) is not None or len(name) >= 9)


def strip_code(line, lang):
    """The line without string literals and its trailing comment."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    if lang != "rs":
        line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    if lang in ("js", "go"):
        line = re.sub(r"`[^`]*`", "``", line)
    cut = line.find(LINE_COMMENT[lang])
    return line if cut < 0 else line[:cut]


def brace_end(lines, start, lang):
    """The last line (1-based) of the block that opens at or after `start`."""
    depth, opened = 0, False
    for number in range(start, min(len(lines), start + 2000) + 1):
        code = strip_code(lines[number - 1], lang)
        for ch in code:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return number
        if not opened and code.rstrip().endswith(";"):
            return number
    return start


def ctags(root):
    out = subprocess.run(["ctags", "-R", "--output-format=json", "--fields=+nKZl", "-f", "-", "."],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    return [t for t in map(json.loads, out.splitlines()) if t.get("_type") == "tag"]


def python_defs(root, files):
    """Functions and classes with exact ranges and docstrings, by `ast`."""
    defs = []
    for rel in files:
        tree = ast.parse((root / rel).read_text(), filename=rel)

        def walk(node, scope):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    kind = "class" if isinstance(child, ast.ClassDef) else "function"
                    defs.append({"name": child.name, "kind": kind, "path": rel, "line": child.lineno,
                                 "end": child.end_lineno, "scope": scope, "doc": ast.get_docstring(child) or ""})
                    walk(child, child.name)
        walk(tree, "")
    return defs


def doc_above(lines, line, lang):
    """The comment block just above a definition (`///`, `//`, `/** */`)."""
    out, number = [], line - 1
    while number >= 1:
        text = lines[number - 1].strip()
        if lang == "rs" and text.startswith("#["):
            number -= 1
            continue
        if text.startswith("///") or (lang == "go" and text.startswith("//")):
            out.append(text.lstrip("/").strip())
        elif lang == "js" and (text.startswith("*") or text.startswith("/**")):
            body = text.lstrip("/*").rstrip("*/").strip()
            if body and not body.startswith("@"):
                out.append(body)
            elif body.startswith("@"):
                out.clear()
        else:
            break
        number -= 1
    return " ".join(reversed(out))


def other_defs(root, files, lang):
    """Definitions by ctags, bodies by brace matching; in-file test modules
    (Rust's `mod tests`) and anonymous functions are left out."""
    by_file = {}
    for tag in ctags(root):
        if tag["path"] in files:
            by_file.setdefault(tag["path"], []).append(tag)
    defs = []
    for rel, tags in by_file.items():
        lines = (root / rel).read_text(errors="replace").splitlines()
        tests = [(t["line"], brace_end(lines, t["line"], lang)) for t in tags
                 if t.get("kind") == "module" and "test" in t["name"]]
        for tag in tags:
            kind = tag.get("kind")
            if kind not in CALLABLE | TYPES or tag["name"].startswith("AnonymousFunction"):
                continue
            if any(a <= tag["line"] <= b for a, b in tests):
                continue
            end = brace_end(lines, tag["line"], lang)
            defs.append({"name": tag["name"], "kind": "function" if kind in CALLABLE else "class", "path": rel,
                         "line": tag["line"], "end": end, "scope": tag.get("scope", ""),
                         "doc": doc_above(lines, tag["line"], lang)})
    return defs


def first_sentence(doc, name):
    text = " ".join(doc.split())
    text = re.split(r"(?<=[.!?])\s|:\s|\(", text)[0].rstrip(".:")
    if text.startswith(name + " "):
        text = text[len(name) + 1:]
    words = text.split()
    if not 5 <= len(words) <= 20 or name.lower() in text.lower() or "`" in text or "[" in text:
        return ""
    return " ".join([base_verb(words[0].lower())] + words[1:])


def base_verb(word):
    """`returns` → `return`, so a doc comment's third person reads after "Where does the code"."""
    if re.search(r"(ch|sh|ss|x)es$", word):
        return word[:-2]
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def facts(corpus, root):
    lang = corpus["lang"]
    files = ask_corpora.source_files(corpus, root)
    defs = python_defs(root, files) if lang == "py" else other_defs(root, files, lang)
    count = {}
    for d in defs:
        count[d["name"]] = count.get(d["name"], 0) + 1
    unique = {d["name"]: d for d in defs if count[d["name"]] == 1}
    texts = {rel: (root / rel).read_text(errors="replace").splitlines() for rel in files}
    callables = [d for d in defs if d["kind"] == "function"]

    def innermost(rel, number):
        around = [d for d in callables if d["path"] == rel and d["line"] < number <= d["end"]]
        return min(around, key=lambda d: d["end"] - d["line"], default=None)

    calls, uses = {}, {}
    for rel, lines in texts.items():
        for number, raw in enumerate(lines, 1):
            code = strip_code(raw, lang)
            owner = innermost(rel, number)
            if owner is None:
                continue
            for name in re.findall(r"\b([A-Za-z_]\w*)\s*\(", code):
                if name in unique and name != owner["name"] and name not in KEYWORDS:
                    calls.setdefault(name, set()).add(owner["name"])
            for name in set(re.findall(r"\b([A-Za-z_]\w*)\b", code)):
                if name in unique and unique[name]["kind"] == "class" and name != owner["name"]:
                    uses.setdefault(name, set()).add(owner["name"])
    return {"defs": defs, "unique": unique, "calls": calls, "uses": uses,
            "imports": ask_corpora.imports(corpus, root, files)}


def clean_callers(name, f):
    """The callers, when every one is a uniquely named function (so the answer can be checked)."""
    callers = f["calls"].get(name, set())
    if not 1 <= len(callers) <= 3 or not all(c in f["unique"] for c in callers):
        return None
    return sorted(callers)


def qualified(corpus, d):
    lang, module = corpus["lang"], ask_corpora.module_of(corpus, d["path"])
    if d["scope"]:
        sep = {"py": ".", "rs": "::", "js": "#", "go": "."}[lang]
        return f"{d['scope'].split('.')[-1]}{sep}{d['name']}"
    sep = "::" if lang == "rs" else "."
    return f"{module}{sep}{d['name']}" if module else d["name"]


TEMPLATES = {
    "definition": ["Where is {name} defined?",
                   "I keep running into {name} in this code base and would like to read its source. Which file is it in?",
                   "Show me the definition of {qual}.",
                   "Which file declares `{name}`, and on what line?",
                   "Where is the code that {doc} defined?"],
    "callers": ["Who calls {name}?",
                "Which functions call {qual}?",
                "I want to change how {name} behaves. Which places in the code invoke it today?",
                "List the callers of `{name}` (it is defined in {path}).",
                "What calls the function that {doc}?"],
    "callees": ["What does {name} call?",
                "Which functions are called by {qual}?",
                "When {name} runs, which other functions of this project does it invoke?",
                "List the functions that `{name}` in {path} calls."],
    "impact": ["What breaks if I change {name}?",
               "If the signature of {qual} changed, which code would be affected?",
               "I plan to rename `{name}` in {path}. What depends on it?",
               "What would I have to update after modifying {name}?"],
    "importers": ["Which files import {module}?",
                  "Who imports {path}?",
                  "Which modules of this project depend on the {module} module?",
                  "List every file with an import of `{module}`."],
    "references": ["Which definitions use {name}?",
                   "Where is the type {name} used?",
                   "Which functions refer to `{name}` from {path}?",
                   "Find the code that makes use of {qual}."],
    "class_method": ["Which class defines the method {name}?",
                     "{name} is a method. What type does it belong to?",
                     "On which class or struct is `{name}` declared?",
                     "Which type implements the {name} method, and in which file?"],
    "search": ["Where does the code {doc}?",
               "Which function is responsible for this: {doc}",
               "Find the code that does this: {doc}",
               "How does this library {doc}? Point me to the function."],
    "docs": ["What do the docs say about {heading}?",
             "Is there documentation on {heading}? Summarize it.",
             "According to the documentation, what should I know about {heading}?",
             "Explain {heading} as {doc_file} describes it."],
    "diff": ["What did the uncommitted change touch?",
             "Which functions did I edit in the working tree?",
             "Summarize my local modifications.",
             "What is in the current diff?"],
}
GENERAL = [("What is 17 times 23?", ["391"]),
           ("What does HTTP status code 404 mean?", ["not found"]),
           ("Convert the decimal number 255 to hexadecimal.", ["ff"]),
           ("What does the acronym JSON stand for?", ["notation"]),
           ("What is 2 to the power of 10?", ["1024"]),
           ("In one sentence, what is a stack in computer science?", ["last"])]
PER_CORPUS = {"definition": 2, "callers": 3, "callees": 2, "impact": 1, "importers": 2, "references": 1,
              "class_method": 1, "search": 2, "docs": 1, "diff": 1}


def phrase(shape, turn, values):
    """The `turn`-th wording of the shape that the subject can fill."""
    templates = TEMPLATES[shape]
    for step in range(len(templates)):
        template = templates[(turn + step) % len(templates)]
        try:
            return template.format(**values), (turn + step) % len(templates)
        except KeyError:
            continue
    raise ValueError(shape)


def subjects(corpus, f, rng):
    """(shape, values, expect) candidates for one corpus, shuffled per shape."""
    out = {shape: [] for shape in PER_CORPUS}
    for name, d in sorted(f["unique"].items()):
        if not strong_name(name):
            continue
        values = {"name": name, "qual": qualified(corpus, d), "path": d["path"],
                  "doc": first_sentence(d["doc"], name)}
        values = {k: v for k, v in values.items() if v}
        if d["kind"] == "function":
            callers = clean_callers(name, f)
            if callers:
                out["callers"].append((values, callers))
                out["impact"].append((values, callers))
            callees = sorted(c for c, by in f["calls"].items() if name in by and strong_name(c))
            if 1 <= len(callees) <= 3:
                out["callees"].append((values, callees))
            out["definition"].append((values, [pathlib.PurePath(d["path"]).name]))
            if d["scope"] and d["scope"].split(".")[-1] in f["unique"]:
                out["class_method"].append((values, [d["scope"].split(".")[-1]]))
            if "doc" in values:
                out["search"].append(({"doc": values["doc"]}, [name]))
        elif d["kind"] == "class":
            users = sorted(f["uses"].get(name, set()))
            if 1 <= len(users) <= 3 and all(u in f["unique"] for u in users):
                out["references"].append((values, users))
    for module, (path, importers) in sorted(f["imports"].items()):
        if 1 <= len(importers) <= 3:
            out["importers"].append(({"module": module, "path": path}, sorted(importers)))
    for heading, doc_file, start, end in ask_corpora.doc_sections(corpus, ask_corpora.root_of(corpus)):
        out["docs"].append(({"heading": heading, "doc_file": doc_file},
                            [pathlib.PurePath(doc_file).name], [doc_file, start, end]))
    for shape in out:
        rng.shuffle(out[shape])
    return out


def main():
    rng = random.Random(35)
    questions, corpora, turns = [], {}, {shape: 0 for shape in PER_CORPUS}
    for corpus in ask_corpora.CORPORA:
        root = ask_corpora.fetch(corpus)
        f = facts(corpus, root)
        found = subjects(corpus, f, rng)
        edit = ask_corpora.pick_edit(corpus, root, f, rng)
        corpora[corpus["id"]] = {k: v for k, v in corpus.items() if k != "id"} | {"edits": [edit[:3]]}
        for shape, wanted in PER_CORPUS.items():
            if shape == "diff":
                picks = [({}, [edit[3]])]
            else:
                picks = found[shape][:wanted]
            if len(picks) < wanted:
                print(f"{corpus['id']}: {shape}: {len(picks)} of {wanted}", file=sys.stderr)
            for pick in picks:
                text, form = phrase(shape, turns[shape], pick[0])
                turns[shape] += 1
                row = {"corpus": corpus["id"], "half": corpus["half"], "shape": shape, "form": form,
                       "q": text, "expect": pick[1]}
                if len(pick) > 2:
                    row["cite_within"] = pick[2]
                questions.append(row)
    for i, (text, expect) in enumerate(GENERAL):
        corpus = ask_corpora.CORPORA[i % len(ask_corpora.CORPORA)]
        questions.append({"corpus": corpus["id"], "half": corpus["half"], "shape": "general", "form": i,
                          "q": text, "expect": expect})
    OUT.write_text(json.dumps({"about": __doc__.strip().split("\n\n")[0] + " Generated by bench/ask_questions.py.",
                               "corpora": corpora, "questions": questions}, indent=1) + "\n")
    shapes = {}
    for q in questions:
        shapes.setdefault(q["shape"], set()).add(q["form"])
    print(f"{len(questions)} questions over {len(corpora)} corpora; wordings per shape: "
          + ", ".join(f"{s} {len(forms)}" for s, forms in shapes.items()))


if __name__ == "__main__":
    main()
