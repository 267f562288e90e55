# SPDX-License-Identifier: MIT
"""app.py — the GUIDE's Python example: read a GGUF and a safetensors file with
the modelio package (gguf-py's and safetensors' APIs), write one back.
usage: python app.py MODEL.gguf OUT.safetensors"""
import sys

import numpy as np
import modelio
from modelio.gguf import GGUFReader
from modelio.safetensors import safe_open, save_file

reader = GGUFReader(sys.argv[1])
arch = reader.fields["general.architecture"].contents()
tokens = reader.fields["tokenizer.ggml.tokens"]
print(f"modelio {modelio.library_version}: {arch}, {len(reader.fields)} fields, "
      f"{len(tokens)} tokens, first {tokens.contents(0)!r}")

save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3)}, sys.argv[2], metadata={"arch": arch})
with safe_open(sys.argv[2], framework="np") as f:
    w = f.get_tensor("w")
    print(f"w {list(w.shape)} {w.dtype} sum={w.sum():g} metadata={f.metadata()}")
