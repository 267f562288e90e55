#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_include_rules.py — the module map of docs/ARCHITECTURE.md, enforced.

Reads the table between "<!-- module-map: begin -->" and "<!-- module-map: end -->"
(one row per folder: `folder/` | job | may include) and checks the tree:
  - every #include of a file in the repository made by a file of a checked
    folder (all but the "*" rows) names the folder's own files, a public header
    (include/), or a file of a folder in its "May include" cell;
  - every folder under src/ that holds sources has a row of its own, and every
    other checked file belongs to a row;
  - the rules themselves have no cycle and name only folders that have rows;
  - no .c file under src/ declares a function (or an extern object) at file
    scope without defining it: prototypes live in the module's headers.
Each violation is printed as FILE:LINE: message; the exit status is 1 if there
is any. An include is resolved as the compiler would (the including file's
folder, then src/, then include/); one that resolves to no file of the tree is a
system header and not checked.

Usage: test_include_rules.py SOURCE_DIR      check the tree
       test_include_rules.py --self-test     build small bad trees in a temporary
                                             directory and check that each fails
                                             with the expected FILE:LINE (and the
                                             good one passes)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAP_DOC = "docs/ARCHITECTURE.md"
BEGIN, END = "<!-- module-map: begin -->", "<!-- module-map: end -->"
SOURCE_EXT = (".c", ".h", ".cpp", ".hpp", ".cc")
SKIP_DIRS = {".git", "__pycache__", "node_modules"}


def read_rules(root, errors):
    """{folder: set(allowed folders) or None for '*'} and {folder: line}."""
    path = os.path.join(root, MAP_DOC)
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as e:
        errors.append(f"{MAP_DOC}:1: cannot read the module map: {e.strerror}")
        return {}, {}
    try:
        b = lines.index(BEGIN)
        e = lines.index(END, b)
    except ValueError:
        errors.append(f"{MAP_DOC}:1: no '{BEGIN}' ... '{END}' table")
        return {}, {}
    rules, where = {}, {}
    for n in range(b + 1, e):
        line = lines[n].strip()
        if not line.startswith("|") or re.match(r"^\|[\s|:-]*\|$", line) or line.startswith("| Folder"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        m = re.fullmatch(r"`([A-Za-z0-9_./-]+/)`", cells[0])
        if not m or len(cells) < 3:
            errors.append(f"{MAP_DOC}:{n + 1}: a row must be | `folder/` | job | may include |")
            continue
        folder, cell = m.group(1), cells[-1].strip("`") if cells[-1] in ("`*`", "`—`") else cells[-1]
        if folder in rules:
            errors.append(f"{MAP_DOC}:{n + 1}: {folder} has a second row")
        where[folder] = n + 1
        if cell == "*":
            rules[folder] = None
        elif cell in ("—", "-"):
            rules[folder] = set()
        else:
            items = [i.strip() for i in cell.split(",")]
            bad = [i for i in items if not re.fullmatch(r"`[A-Za-z0-9_./-]+/`", i)]
            if bad:
                errors.append(f"{MAP_DOC}:{n + 1}: {folder}: 'may include' must be —, * or `folder/`, ...; got {bad[0]!r}")
            rules[folder] = {i.strip("`") for i in items if i not in bad}
    for f, allowed in rules.items():
        for a in sorted(allowed or ()):
            if a not in rules:
                errors.append(f"{MAP_DOC}:{where[f]}: {f} may include {a}, which has no row")
            elif a == f:
                errors.append(f"{MAP_DOC}:{where[f]}: {f} names itself (its own files are always allowed)")
    # The rules are layers: no cycle among the folders' allowances.
    state = {}

    def visit(f, stack):
        state[f] = 1
        for a in sorted(rules.get(f) or ()):
            if a not in rules:
                continue
            if state.get(a) == 1:
                cyc = stack[stack.index(a):] + [a] if a in stack else [f, a]
                errors.append(f"{MAP_DOC}:{where[f]}: the rules have a cycle: {' -> '.join(cyc)}")
            elif not state.get(a):
                visit(a, stack + [a])
        state[f] = 2

    for f in sorted(rules):
        if not state.get(f):
            visit(f, [f])
    return rules, where


def walk(root, top):
    base = os.path.join(root, top)
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                yield os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")


def owner(rel, rules):
    """The row a file belongs to: under src/ the row of its own folder (each
    source folder has one), elsewhere the deepest row folder holding it."""
    if rel.startswith("src/"):
        d = rel.rsplit("/", 1)[0] + "/"
        return d if d in rules else None
    best = None
    for f in rules:
        if rel.startswith(f) and (best is None or len(f) > len(best)):
            best = f
    return best


def strip_comments(text, keep_strings=False):
    """Comments blanked (and string/char literals too unless keep_strings), line
    breaks kept, so that line numbers stay right."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(text[i:j] if keep_strings else c + " " * max(j - i - 2, 0) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_lines(root, rel, keep_strings):
    text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
    return strip_comments(text, keep_strings).split("\n")


INCLUDE = re.compile(r'^\s*#\s*include\s*(<([^>]+)>|"([^"]+)")')


def check_includes(root, rel, own, rules, errors):
    allowed = rules[own]
    d = os.path.dirname(rel)
    for n, line in enumerate(source_lines(root, rel, True), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        quoted = m.group(3) is not None
        name = m.group(3) if quoted else m.group(2)
        target = None
        for base in ([d] if quoted else []) + ["src", "include"]:
            p = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
            if not p.startswith("../") and os.path.isfile(os.path.join(root, p)):
                target = p
                break
        if target is None or target.startswith("include/"):
            continue  # a system header; public headers go anywhere
        t_own = owner(target, rules)
        if t_own == own or (t_own is not None and t_own in allowed):
            continue
        may = ", ".join(sorted(allowed)) or "no other folder"
        errors.append(f"{rel}:{n}: includes {m.group(1)} ({target}, in {t_own or 'a folder without a row'}); "
                      f"{own} may include {may} (docs/ARCHITECTURE.md)")


DECL_START = re.compile(r"^(static|typedef|struct|union|enum|_Static_assert|static_assert)\b")
PROTO = re.compile(r"^(?:extern\s+)?[A-Za-z_][\w\s*]*?[\s*](\w+)\s*\(")


def check_decls(root, rel, errors):
    """File-scope declarations without a body in a .c file under src/: a
    statement at brace depth 0 that ends in ';' and is a prototype (a type, a
    name, '(') or starts with 'extern'."""
    lines = source_lines(root, rel, False)
    for k, line in enumerate(lines):  # preprocessor directives (and their continuations) out
        if line.lstrip().startswith("#") and (k == 0 or not lines[k - 1].rstrip().endswith("\\")):
            j = k
            while True:
                cont = lines[j].rstrip().endswith("\\")
                lines[j] = ""
                j += 1
                if not cont or j >= len(lines):
                    break
    depth, stmt, start = 0, "", 1
    for k, line in enumerate(lines, 1):
        for c in line + "\n":
            if c == "{":
                depth += 1
                stmt = ""
            elif c == "}":
                depth = max(depth - 1, 0)
            elif depth == 0:
                if not stmt.strip():
                    stmt, start = "", k
                if c == ";":
                    s = " ".join(stmt.split())
                    m = PROTO.match(s)
                    if s and not DECL_START.match(s) and (m or s.startswith("extern ")):
                        what = f"function {m.group(1)}" if m else "extern object"
                        errors.append(f"{rel}:{start}: declares {what} at file scope; a prototype belongs in the "
                                      "module's internal header (docs/ARCHITECTURE.md)")
                    stmt = ""
                else:
                    stmt += c


def check(root):
    errors = []
    rules, where = read_rules(root, errors)
    if not rules:
        return errors, 0
    tops = sorted({f.split("/", 1)[0] for f, a in rules.items() if a is not None} | {"src"})
    files = 0
    for top in tops:
        for rel in walk(root, top):
            own = owner(rel, rules)
            if own is None:
                d = rel.rsplit("/", 1)[0] + "/"
                errors.append(f"{rel}:1: its folder {d} has no row in docs/ARCHITECTURE.md's module map")
                continue
            if rules[own] is None:
                continue
            files += 1
            check_includes(root, rel, own, rules, errors)
            if rel.startswith("src/") and rel.endswith(".c"):
                check_decls(root, rel, errors)
    for f in sorted(rules):
        if rules[f] is not None and not os.path.isdir(os.path.join(root, f)):
            print(f"note: {f} (docs/ARCHITECTURE.md:{where[f]}) has no files yet")
    return errors, files


# ------------------------------------------------------------------ self-test

def self_test():
    here = os.path.dirname(os.path.abspath(__file__))
    real_doc = os.path.join(here, "..", "..", MAP_DOC)
    doc = open(real_doc, encoding="utf-8").read()
    good = {
        MAP_DOC: doc,
        "include/modelio.h": "/* public */\n",
        "include/modelio_inspect.h": "#include <modelio.h>\n",
        "src/core/core.h": '#include "modelio.h"\nint mio_err_set(int st, const char *fmt, ...);\n',
        "src/core/error.c": '#include "core.h"\n#include <stdio.h>\n\nint mio_err_set(int st, const char *fmt, ...) { (void)fmt; return st; }\n',
        "src/gguf/gguf_internal.h": '#include "core/core.h"\nint gguf_parse(const char *p);\n',
        "src/gguf/parse.c": ('#include "gguf_internal.h"\n#include "core/core.h"\n'
                             'static int helper(int x);\n'
                             'static const char *k = "int not_a_decl(void);";\n'
                             'ABI_FROZEN(mio_gguf_value, depth);\n'
                             'int gguf_parse(const char *p) { return helper(p != 0); }\n'
                             'static int helper(int x) { return x; }\n'),
        "src/kernels/kernels.h": '#include "core/cpu.h"\n',
        "src/core/cpu.h": "int cpu(void);\n",
        "src/kernels/avx2/avx2.h": '#include "kernels/kernels.h"\n',
        "src/kernels/avx2/dot_avx2.c": '#include "kernels/avx2/avx2.h"\n#include "core/core.h"\n#include <immintrin.h>\n',
        "src/convert/convert.c": ('#include "gguf/gguf_internal.h"\n#include "safetensors/st_internal.h"\n'
                                  '/* #include "quantize/quantize_internal.h" in a comment */\n'),
        "src/safetensors/st_internal.h": '#include "core/core.h"\n',
        "src/quantize/quantize_internal.h": '#include "core/core.h"\n',
        "tools/cli.h": "#include <modelio.h>\n",
        "tools/mio_tool.c": '#include <modelio.h>\n#include <modelio_inspect.h>\n#include "cli.h"\n#include <stdio.h>\n',
        "bench/bench_x.c": '#include "modelio.h"\n#include "../tests/interop/peer.h"\n',
        "tests/interop/peer.h": "int peer(void);\n",
        "tests/unit/test_x.c": '#include "gguf/gguf_internal.h"\n#include "../../src/gguf/parse.c"\n',
    }
    cases = [
        ("the good tree", {}, None),
        ("a container including the other container", {
            "src/gguf/write.c": '#include "gguf_internal.h"\n\n#include "safetensors/st_internal.h"\n'},
         "src/gguf/write.c:3: includes \"safetensors/st_internal.h\""),
        ("core reaching up into gguf", {
            "src/core/io.c": '#include "core.h"\n#include "gguf/gguf_internal.h"\n'},
         "src/core/io.c:2: includes \"gguf/gguf_internal.h\""),
        ("a kernel back end reaching up into quantize", {
            "src/kernels/avx2/iq_avx2.c": '#include "kernels/avx2/avx2.h"\n#include "quantize/quantize_internal.h"\n'},
         "src/kernels/avx2/iq_avx2.c:2:"),
        ("the kernel table including a back end's private header", {
            "src/kernels/dispatch.c": '#include "kernels/kernels.h"\n#include "kernels/avx2/avx2.h"\n'},
         "src/kernels/dispatch.c:2: includes \"kernels/avx2/avx2.h\""),
        ("an angle-bracket include of an internal header", {
            "src/gguf/edit.c": '#include <quantize/quantize_internal.h>\n'},
         "src/gguf/edit.c:1: includes <quantize/quantize_internal.h>"),
        ("a tool including an internal header", {
            "tools/mio_bad.c": '#include <modelio.h>\n#include "cli.h"\n#include "../src/core/core.h"\n'},
         "tools/mio_bad.c:3: includes \"../src/core/core.h\""),
        ("a tool including a test helper", {
            "tools/mio_bad2.c": '#include "../tests/interop/peer.h"\n'},
         "tools/mio_bad2.c:1:"),
        ("a public header including an internal one", {
            "include/modelio_inspect.h": '#include <modelio.h>\n#include "../src/core/core.h"\n'},
         "include/modelio_inspect.h:2:"),
        ("a local prototype of another file's function", {
            "src/safetensors/file.c": ('#include "st_internal.h"\n\n'
                                       'mio_status mio_st_open_index(const char *path, uint32_t flags,\n'
                                       '                         mio_st_file **out);\n'
                                       'int st_f(void) { return 0; }\n')},
         "src/safetensors/file.c:3: declares function mio_st_open_index"),
        ("a local extern object", {
            "src/quant/iq.c": '#include "core/core.h"\nextern const int iq_grid[4];\n'},
         "src/quant/iq.c:2: declares extern object"),
        ("a source folder without a row", {
            "src/newmod/new.c": '#include "core/core.h"\n'},
         "src/newmod/new.c:1: its folder src/newmod/ has no row"),
        ("a cycle in the rules", {
            MAP_DOC: doc.replace("`core.h` is every module's helper header | — |",
                                 "`core.h` is every module's helper header | `src/gguf/` |")},
         "the rules have a cycle: src/core/ -> src/gguf/ -> src/core/"),
        ("a rule naming a folder without a row", {
            MAP_DOC: doc.replace("| `src/core/`, `src/gguf/` |", "| `src/core/`, `src/gguff/` |", 1)},
         "may include src/gguff/, which has no row"),
        ("no module map", {MAP_DOC: "# nothing here\n"}, "no '<!-- module-map: begin -->'"),
    ]
    fails = 0
    for title, edits, expect in cases:
        tmp = tempfile.mkdtemp(prefix="mio-include-rules-")
        try:
            for rel, body in {**good, **edits}.items():
                p = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w", encoding="utf-8") as f:
                    f.write(body)
            r = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            out = r.stdout
            if expect is None:
                ok = r.returncode == 0 and " 0 violations" in out
            else:
                ok = r.returncode == 1 and expect in out
            print(f"{'ok  ' if ok else 'FAIL'} {title}" + ("" if ok else f" (exit {r.returncode}, wanted "
                  f"{'0' if expect is None else '1 and ' + repr(expect)}):\n{out}"))
            fails += not ok
        finally:
            shutil.rmtree(tmp)
    print(f"{len(cases) - fails} of {len(cases)} self-test cases behave")
    return 1 if fails else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    errors, files = check(argv[1])
    for e in errors:
        print(e)
    print(f"{files} files checked against docs/ARCHITECTURE.md, {len(errors)} violation{'s' if len(errors) != 1 else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
