#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_yaml_peer.py — the model-card YAML reader (src/core/yaml.c) against
PyYAML's safe_load, the reference's reader: every document of
tests/data/yaml/cards.yaml must give the same tree — mappings with the same
keys in any order, sequences, strings byte for byte, and each plain scalar
resolved to what PyYAML makes of it (None, bool, int, float, a date, or the
same string).

  usage: test_yaml_peer.py YAML_DUMP CARDS.yaml   (with the PyYAML peers' python)
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("SKIP: PyYAML is not installed in this python (scripts/fetch-py-peers.sh has it, with gguf)")
    sys.exit(77)

DUMP, CARDS = sys.argv[1], sys.argv[2]
failures = []


def same(ours, py, where):
    if isinstance(ours, dict) and "$plain" in ours and set(ours) == {"$plain", "$kind"}:
        k, text = ours["$kind"], ours["$plain"]
        ok = {"null": py is None, "true": py is True, "false": py is False,
              "int": type(py) is int and py != 0, "float": type(py) is float and py != 0,
              "zero": type(py) in (int, float) and py == 0,
              "date": isinstance(py, (datetime.date, datetime.datetime)),
              "str": isinstance(py, str) and py == text}[k]
        if not ok:
            failures.append(f"{where}: plain {text!r} resolved as {k}, PyYAML gives {py!r}")
        return
    if isinstance(ours, dict):
        if not isinstance(py, dict) or set(ours) != set(py):
            failures.append(f"{where}: keys {sorted(ours)} vs PyYAML {py if not isinstance(py, dict) else sorted(py)}")
            return
        for k in ours:
            same(ours[k], py[k], f"{where}.{k}")
        return
    if isinstance(ours, list):
        if not isinstance(py, list) or len(ours) != len(py):
            failures.append(f"{where}: a list of {len(ours)} vs PyYAML {py!r}")
            return
        for i, (a, b) in enumerate(zip(ours, py)):
            same(a, b, f"{where}[{i}]")
        return
    if ours != py:
        failures.append(f"{where}: {ours!r} vs PyYAML {py!r}")


def main():
    docs, name, cur = [], None, []
    with open(CARDS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("=== "):
                if name:
                    docs.append((name, "".join(cur)))
                name, cur = line[4:].strip(), []
            elif name:
                cur.append(line)
    if name:
        docs.append((name, "".join(cur)))
    with tempfile.TemporaryDirectory() as td:
        for name, text in docs:
            p = os.path.join(td, name + ".yaml")
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
            r = subprocess.run([DUMP, p], capture_output=True, text=True)
            py = yaml.safe_load(text)
            if r.returncode != 0:
                failures.append(f"{name}: libmodelio refused it: {r.stdout.strip()} {r.stderr.strip()}")
                continue
            n0 = len(failures)
            same(json.loads(r.stdout), py, name)
            print(("ok   " if len(failures) == n0 else "FAIL ") + f"{name}: {len(text.splitlines())} lines")
    for f in failures:
        print("FAIL: " + f)
    print(f"{len(docs) - len({f.split(':')[0].split('.')[0].split('[')[0] for f in failures})} of {len(docs)} "
          f"documents as PyYAML {yaml.__version__} reads them")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
