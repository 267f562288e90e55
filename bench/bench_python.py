# SPDX-License-Identifier: MIT
"""bench_python.py — the `modelio` Python package against the upstream
packages it imitates, in one process, on the same files, interleaved rounds
(one warm-up round first), medians and the ratio upstream / ours (> 1: ours
is faster). Run with the python of scripts/fetch-py-peers.sh:

  PY=$(scripts/fetch-py-peers.sh)
  MODELIO_LIBRARY=build/src/libmodelio.so PYTHONPATH=python \
      $PY bench/bench_python.py tests/data [MB] [rounds]

What is timed:
  safetensors load_file      modelio.safetensors.load_file vs safetensors.numpy.load_file
                             on golden/large_20000.safetensors (20,000 tiny tensors: header cost)
                             and on a generated MB-megabyte file (default 500; 250 F32 tensors
                             written by upstream's save_file): "load" is the call alone
                             (ours maps, upstream copies every byte), "load+read" also reads
                             every byte of every array (a sum), so the page faults are paid too.
                             save_file of the same dictionaries (ours: temp file + fsync +
                             rename; upstream: neither).
  state dicts, checkpoints   modelio.checkpoint on the same MB-megabyte dictionary:
                             save_state_dict vs safetensors.numpy.save_file (the same bytes);
                             load_state_dict into preallocated arrays (every name, dtype and
                             shape checked, then every byte copied) vs load_file (new arrays);
                             save_checkpoint (state dict + a 16 MB optimizer blob + trainer
                             state; each file fsynced, sentinel, directory swap) vs upstream
                             save_file + the blob and the JSON written with open() (no fsync,
                             no atomicity: what crash safety costs); load_checkpoint (every
                             file hashed against the sentinel, then loaded) vs load_file +
                             reading the blob.
  GGUFReader                 modelio.gguf.GGUFReader vs gguf.GGUFReader: open (parse every
                             field and tensor info), and open + the whole token list as
                             Python strings (field.contents()), on tests/data/vocab-*.gguf
                             and on a generated 150,000-token vocabulary (one round there:
                             gguf-py needs seconds to open it).
The page cache holds every input (each is read once before the rounds).
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
import gguf
import safetensors.numpy as up_st

import modelio
import modelio.safetensors as me_st
import modelio.gguf as me_gguf
import modelio.checkpoint as me_ck

DATA = sys.argv[1] if len(sys.argv) > 1 else "tests/data"
MB = int(sys.argv[2]) if len(sys.argv) > 2 else 500
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5


def bench(label, ours, theirs, rounds=ROUNDS, warm_theirs=True):
    ours()   # warm-up
    if warm_theirs:
        theirs()
    to, tt = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        ours()
        to.append(time.perf_counter() - t)
        t = time.perf_counter()
        theirs()
        tt.append(time.perf_counter() - t)
    mo, mt = statistics.median(to), statistics.median(tt)
    print("| %s | %s | %s | %.2f× |" % (label, fmt(mo), fmt(mt), mt / mo), flush=True)


def fmt(s):
    return "%.1f ms" % (s * 1e3) if s < 10 else "%.2f s" % s


def read_all(d):
    tot = 0.0
    for a in d.values():
        tot += float(a.sum(dtype=np.float64))
    return tot


def make_st(path, mb):
    rng = np.random.default_rng(1)
    n = 250
    per = mb * 1000000 // n // 4
    rows = max(1, per // 1000)
    up_st.save_file({"layer.%03d.weight" % i: rng.standard_normal((rows, 1000), dtype=np.float32)
                     for i in range(n)}, path)


def make_vocab(path, n):
    w = gguf.GGUFWriter(path, "llama")
    w.add_tokenizer_model("gpt2")
    w.add_token_list(["tok_%d_\u0120x" % i for i in range(n)])
    w.add_token_types([1] * n)
    w.add_array("tokenizer.ggml.merges", ["a%d b%d" % (i, i) for i in range(n)])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    print("modelio %s (%s), numpy %s, safetensors %s, gguf %s, %d rounds\n"
          % (modelio.__version__, modelio.library_path, np.__version__,
             __import__("safetensors").__version__, getattr(gguf, "__version__", "0.19.0"), ROUNDS))
    tmp = tempfile.mkdtemp(prefix="mio_bench_py_")
    try:
        print("| safetensors | modelio | upstream | ratio |\n|---|---|---|---|")
        large = os.path.join(DATA, "safetensors", "golden", "large_20000.safetensors")
        bench("load_file large_20000 (20,000 tensors)", lambda: me_st.load_file(large), lambda: up_st.load_file(large))
        big = os.path.join(tmp, "big.safetensors")
        make_st(big, MB)
        size = os.path.getsize(big)
        with open(big, "rb") as fh:
            while fh.read(1 << 24):
                pass
        assert read_all(me_st.load_file(big)) == read_all(up_st.load_file(big))
        bench("load_file %d MB (250 tensors)" % (size // 1000000), lambda: me_st.load_file(big),
              lambda: up_st.load_file(big))
        bench("load_file %d MB + read every byte" % (size // 1000000), lambda: read_all(me_st.load_file(big)),
              lambda: read_all(up_st.load_file(big)))
        # saving: ours writes a temp file, fsyncs it and renames it into place;
        # upstream writes in place without fsync
        d = up_st.load_file(big)
        out = os.path.join(tmp, "out.safetensors")
        bench("save_file %d MB (ours: fsync + rename)" % (size // 1000000), lambda: me_st.save_file(d, out),
              lambda: up_st.save_file(d, out), rounds=3)
        d = up_st.load_file(large)
        bench("save_file large_20000", lambda: me_st.save_file(d, out), lambda: up_st.save_file(d, out))

        print("\n| state dicts, checkpoints | modelio | upstream | ratio |\n|---|---|---|---|")
        d = up_st.load_file(big)
        bench("save_state_dict %d MB (ours: fsync + rename)" % (size // 1000000),
              lambda: me_ck.save_state_dict(out, d), lambda: up_st.save_file(d, out), rounds=3)
        dst = {k: np.empty_like(v) for k, v in d.items()}
        bench("load_state_dict %d MB into arrays (checked, then copied)" % (size // 1000000),
              lambda: me_ck.load_state_dict(out, dst), lambda: up_st.load_file(out))
        blob = os.urandom(16 << 20)
        ck, plain = os.path.join(tmp, "ck"), os.path.join(tmp, "plain")
        os.makedirs(plain, exist_ok=True)

        def up_save():
            up_st.save_file(d, os.path.join(plain, "model.safetensors"))
            with open(os.path.join(plain, "optimizer.fucina"), "wb") as f:
                f.write(blob)
            with open(os.path.join(plain, "trainer_state.json"), "w") as f:
                json.dump({"format": "fucina.training_checkpoint", "version": 1, "step": 1, "seed": 2}, f)

        def up_load():
            m = up_st.load_file(os.path.join(plain, "model.safetensors"))
            with open(os.path.join(plain, "optimizer.fucina"), "rb") as f:
                return m, f.read()

        bench("save_checkpoint %d MB + 16 MB blob (atomic, fsynced)" % (size // 1000000),
              lambda: me_ck.save_checkpoint(ck, {"model.safetensors": d}, {"step": 1, "seed": 2}, optimizer=blob),
              up_save, rounds=3)
        bench("load_checkpoint (every file hashed first)", lambda: me_ck.load_checkpoint(ck), up_load)
        del d, dst
        os.unlink(out)
        os.unlink(big)

        print("\n| GGUFReader | modelio | gguf-py | ratio |\n|---|---|---|---|")
        vocab150 = os.path.join(tmp, "vocab-150k.gguf")
        make_vocab(vocab150, 150000)
        files = sorted(os.path.join(DATA, f) for f in os.listdir(DATA) if f.startswith("vocab-") and f.endswith(".gguf"))
        for p in files + [vocab150]:
            name = os.path.basename(p)
            n = len(gguf.GGUFReader(p).fields["tokenizer.ggml.tokens"].data)
            # gguf-py takes seconds on the big vocabulary: one round, no warm-up for it there
            kw = {"rounds": 1, "warm_theirs": False} if p == vocab150 else {}
            bench("open %s (%d tokens)" % (name, n), lambda: me_gguf.GGUFReader(p), lambda: gguf.GGUFReader(p), **kw)
            bench("open + all tokens as str, %s" % name,
                  lambda: me_gguf.GGUFReader(p).fields["tokenizer.ggml.tokens"].contents(),
                  lambda: gguf.GGUFReader(p).fields["tokenizer.ggml.tokens"].contents(), **kw)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
