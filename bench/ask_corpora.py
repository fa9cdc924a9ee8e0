"""The eight packages of the unseen `ask` question set: where each comes
from, which of its files are source, and the facts only grep and `ast` need
(imports, document sections, an edit for the diff questions).

Shared by bench/ask_questions.py (which writes the questions) and
bench/agent.py (which fetches the corpora again and asks them)."""

import ast
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request

WORK = pathlib.Path(__file__).resolve().parent / ".work" / "ask"
CORPORA = [
    {"id": "packaging", "lang": "py", "half": "A", "kind": "pypi", "name": "packaging", "version": "24.2",
     "dir": "packaging-24.2", "src": "src"},
    {"id": "textwrap", "lang": "rs", "half": "A", "kind": "crate", "name": "textwrap", "version": "0.16.1",
     "dir": "textwrap-0.16.1", "src": "src"},
    {"id": "commander", "lang": "js", "half": "A", "kind": "npm", "name": "commander", "version": "12.1.0",
     "dir": "commander-12.1.0", "src": "lib"},
    {"id": "pflag", "lang": "go", "half": "A", "kind": "deb", "name": "golang-github-spf13-pflag-dev",
     "version": "1.0.6~git20210604-d5e0c0615ace-1", "dir": "pflag",
     "inner": "usr/share/gocode/src/github.com/spf13/pflag", "src": ""},
    {"id": "pluggy", "lang": "py", "half": "B", "kind": "pypi", "name": "pluggy", "version": "1.5.0",
     "dir": "pluggy-1.5.0", "src": "src"},
    {"id": "humantime", "lang": "rs", "half": "B", "kind": "crate", "name": "humantime", "version": "2.1.0",
     "dir": "humantime-2.1.0", "src": "src"},
    {"id": "qs", "lang": "js", "half": "B", "kind": "npm", "name": "qs", "version": "6.13.0",
     "dir": "qs-6.13.0", "src": "lib"},
    {"id": "go-cmp", "lang": "go", "half": "B", "kind": "deb", "name": "golang-github-google-go-cmp-dev",
     "version": "0.5.9-1", "dir": "go-cmp", "inner": "usr/share/gocode/src/github.com/google/go-cmp", "src": ""},
]
EXTENSION = {"py": ".py", "rs": ".rs", "js": ".js", "go": ".go"}
SKIP_DIRS = {"tests", "test", "testing", "docs", "examples", "benches", "dist", "typings", "testdata",
             "vendor", "fuzz", "testprotos", "teststructs"}


def root_of(corpus):
    return WORK / corpus["dir"]


def fetch(corpus):
    """The corpus's tree, fetched once from its registry into bench/.work/ask."""
    target = root_of(corpus)
    if target.is_dir():
        return target
    WORK.mkdir(parents=True, exist_ok=True)
    staging = WORK / f"staging-{corpus['dir']}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    name, version = corpus["name"], corpus["version"]
    if corpus["kind"] == "pypi":
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        f"{name}=={version}", "-d", str(staging)], check=True)
        archive = next(staging.glob("*.tar.gz"))
    elif corpus["kind"] == "crate":
        archive = staging / f"{name}-{version}.crate"
        url = f"https://static.crates.io/crates/{name}/{name}-{version}.crate"
        with urllib.request.urlopen(url, timeout=60) as response:
            archive.write_bytes(response.read())
    elif corpus["kind"] == "npm":
        subprocess.run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=staging, check=True,
                       capture_output=True)
        archive = next(staging.glob("*.tgz"))
    else:
        subprocess.run(["apt-get", "download", "-q", f"{name}={version}"], cwd=staging, check=True,
                       capture_output=True)
        deb = next(staging.glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(staging / "root")], check=True)
        shutil.move(str(staging / "root" / corpus["inner"]), str(target))
        shutil.rmtree(staging)
        return target
    with tarfile.open(archive) as tar:
        tar.extractall(staging / "x", filter="data")
    inner = next((staging / "x").iterdir())
    shutil.move(str(inner), str(target))
    shutil.rmtree(staging)
    return target


def is_test(rel):
    name = pathlib.PurePath(rel).name
    return (name.startswith("test_") or name.endswith("_test.go") or name.startswith("conftest")
            or name.startswith("fuzzing") or ".test." in name or name.startswith("export_"))


def source_files(corpus, root):
    """The corpus's own source files (no tests, docs, examples or bundles), relative to its root."""
    base = root / corpus["src"] if corpus["src"] else root
    out = []
    for path in sorted(base.rglob("*" + EXTENSION[corpus["lang"]])):
        rel = path.relative_to(root).as_posix()
        if not SKIP_DIRS & set(pathlib.PurePath(rel).parts[:-1]) and not is_test(rel):
            out.append(rel)
    return out


def module_of(corpus, rel):
    """How code names the module of a file: `pkg.mod`, `mod` (Rust, JS), the Go package."""
    path = pathlib.PurePath(rel)
    if corpus["lang"] == "py":
        parts = list(path.with_suffix("").parts[1:] if corpus["src"] else path.with_suffix("").parts)
        if parts and parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)
    if corpus["lang"] == "go":
        return path.parent.name or corpus["dir"]
    if path.stem in ("lib", "mod", "index", "main"):
        return ""
    return path.stem


def imports(corpus, root, files):
    """module → (its path, the files that import it), found with `ast` or grep."""
    lang, found = corpus["lang"], {}
    by_module = {module_of(corpus, rel): rel for rel in files if module_of(corpus, rel)}

    def add(module, importer):
        if module in by_module and by_module[module] != importer:
            found.setdefault(module, (by_module[module], set()))[1].add(pathlib.PurePath(importer).name)

    for rel in files:
        text = (root / rel).read_text(errors="replace")
        if lang == "py":
            package = module_of(corpus, rel).rsplit(".", 1)[0] if not rel.endswith("__init__.py") \
                else module_of(corpus, rel)
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        add(alias.name, rel)
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        up = package.split(".")[: len(package.split(".")) - node.level + 1]
                        base = ".".join(up + ([node.module] if node.module else []))
                    if node.module:
                        add(base, rel)
                    for alias in node.names:
                        add(f"{base}.{alias.name}", rel)
        elif lang == "js":
            for target in re.findall(r"""(?:require\(|from\s)\s*['"](\.{1,2}/[^'"]+)['"]""", text):
                resolved = (pathlib.PurePath(rel).parent / target).as_posix()
                resolved = str(pathlib.PurePath(re.sub(r"\.js$", "", resolved)))
                add(module_of(corpus, resolved + ".js"), rel)
        elif lang == "rs":
            for module in re.findall(r"\b(?:crate|super)::(\w+)", text):
                add(module, rel)
            if pathlib.PurePath(rel).name in ("lib.rs", "main.rs"):
                for module in re.findall(r"^\s*(?:pub\s+)?use\s+(\w+)::", text, re.M):
                    add(module, rel)
        else:
            for block in re.findall(r"^import\s*\(([^)]*)\)|^import\s+(\"[^\"]+\")", text, re.M):
                for path in re.findall(r'"([^"]+)"', " ".join(block)):
                    found.setdefault(path, (path, set()))[1].add(pathlib.PurePath(rel).name)
    names = [pathlib.PurePath(rel).name for rel in files]
    return {m: (p, i) for m, (p, i) in found.items() if all(names.count(n) == 1 for n in i)}


HEADING_RST = re.compile(r"^([=\-~^\"'`#*+]){3,}\s*$")


def doc_sections(corpus, root):
    """(heading, file, first line, last line) of document sections worth a question."""
    out = []
    for path in sorted(list(root.glob("*.md")) + list(root.glob("*.rst")) + list(root.glob("docs/*.rst"))
                       + list(root.glob("docs/*.md"))):
        rel = path.relative_to(root).as_posix()
        if re.search(r"change|history|license|security|release|contrib|tidelift", rel, re.I):
            continue
        lines = path.read_text(errors="replace").splitlines()
        heads = []
        for i, line in enumerate(lines):
            if line.startswith("#") and re.match(r"^#{1,4}\s+\S", line):
                heads.append((i + 1, line.lstrip("#").strip()))
            elif i and HEADING_RST.match(line) and lines[i - 1].strip() and len(line.strip()) >= len(lines[i - 1].strip()):
                heads.append((i, lines[i - 1].strip()))
        for k, (start, title) in enumerate(heads):
            end = heads[k + 1][0] - 1 if k + 1 < len(heads) else len(lines)
            body = [line for line in lines[start:end] if line.strip()]
            words = re.findall(r"[A-Za-z]+", title)
            if 2 <= len(words) <= 6 and len(body) >= 4 and not re.search(r"licen|install|credit|sponsor|support", title, re.I):
                out.append((title.strip("`*"), rel, start, end))
    return out


def pick_edit(corpus, root, f, rng):
    """An edit for the diff questions: one comment line inside a function
    body. Returns [path, anchor, inserted line, function]."""
    comment = "#" if corpus["lang"] == "py" else "//"
    candidates = sorted((d for d in f["unique"].values()
                         if d["kind"] == "function" and d["end"] - d["line"] >= 4 and len(d["name"]) >= 6),
                        key=lambda d: (d["path"], d["line"]))
    rng.shuffle(candidates)
    for d in candidates:
        lines = (root / d["path"]).read_text().splitlines(keepends=True)
        header = lines[d["line"] - 1]
        opener = ":" if corpus["lang"] == "py" else "{"
        if not header.rstrip().endswith(opener) or "".join(lines).count(header) != 1:
            continue
        body = lines[d["line"]]
        indent = body[: len(body) - len(body.lstrip())]
        return [d["path"], header, f"{indent}{comment} edited by the benchmark\n", d["name"]]
    raise SystemExit(f"{corpus['id']}: no function to edit")
