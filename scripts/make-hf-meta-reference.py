#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make-hf-meta-reference.py — writes tests/data/hf/meta-reference.json, the
# expected general.* keys and default file names of convert_hf_to_gguf.py for
# checkpoint directories without a model card (README.md), computed by the
# reference itself: gguf-py's Metadata.load + set_gguf_meta_model, with the
# name fallback and size label of conversion/base.py's prepare_metadata and
# gguf.naming_convention. tests/unit/test_hf_meta.c replays every case through
# src/hf/meta.c. Run once by hand with the reference venv, never in CI:
#   /work/refenv/bin/python scripts/make-hf-meta-reference.py \
#       /path/to/llama.cpp > tests/data/hf/meta-reference.json
import json, math, struct, sys, tempfile
from pathlib import Path

LLAMA = Path(sys.argv[1] if len(sys.argv) > 1 else
             "/work/refsrc/llama_cpp_python-0.3.36/vendor/llama.cpp")
sys.path.insert(0, str(LLAMA / "gguf-py"))
import numpy as np  # noqa: E402
import gguf  # noqa: E402

M = 1000 * 1000
B = 1000 * M


def dense(total):
    """Tensors (GGUF name, ggml ne) holding exactly total parameters."""
    out, i = [], 0
    while total > 0:
        n = min(total, 1 << 30)
        if n % 1000 == 0:
            out.append([f"blk.{i}.ffn_up.weight", [1000, n // 1000]])
        else:
            out.append([f"blk.{i}.ffn_up.weight", [n]])
        total -= n
        i += 1
    return out


def moe(n_expert, expert_each, shared):
    """An MoE layer: one _exps tensor of n_expert experts of expert_each
    parameters, a 2D _exps tensor (counted as shared), a _shexp tensor, biases."""
    t = dense(shared)
    t.append(["blk.0.ffn_up_exps.weight", [1000, expert_each // 1000, n_expert]])
    t.append(["blk.0.ffn_gate_exps.bias", [10, n_expert]])
    t.append(["blk.0.ffn_up_shexp.weight", [100, 10]])
    t.append(["blk.0.ffn_gate_inp.weight", [64, n_expert]])
    return t


CASES = []


def case(dir, total=None, tensors=None, config=None, gen=None, model_name=None, suffix=""):
    if tensors is None:
        tensors = dense(total) if total else []
    CASES.append(dict(dir=dir, dir_suffix=suffix, config=config, generation_config_text=gen,
                      model_name=model_name, tensors=tensors))


# directory names only (config.json without _name_or_path)
for d, t in [("Llama-3.2-1B-Instruct", 1235814400), ("SmolLM2-135M", 134515008),
             ("SmolLM2-135M-Instruct", 134515008), ("SmolLM2-1.7B-Instruct", 1711376384),
             ("Qwen2.5-0.5B-Instruct", 494032768), ("Qwen2.5-0.5B", 494032768),
             ("Mistral-7B-v0.1", 7241732096), ("Mistral-7B-Instruct-v0.2", 7241732096),
             ("tiny-llama", 1100 * M), ("my_model", 5 * M), ("Qwen3-0.6B-Base", 596049920),
             ("Meta-Llama-3-8B-Instruct", 8030261248), ("model", 135 * M), ("Phi-3-mini-4k-instruct", 3821079552),
             ("Phi-3-mini-128k-instruct", 3821079552), ("vicuna-7b-v1.5", 6738415616),
             ("Mixtral-8x7B-Instruct-v0.1", 46702792704), ("Mistral-7B-Instruct-v0.2-GGUF", 7241732096),
             ("bloom-7b1", 7069016064), ("gpt2", 124439808), ("gpt2-xl", 1557611200),
             ("gpt2-medium", 354823168), ("t5-small", 60506624), ("opt-1.3b", 1315758080),
             ("Qwen1.5-MoE-A2.7B", 14315784192), ("deepseek-coder-6.7b-instruct", 6740512768),
             ("TinyLlama-1.1B-Chat-v1.0", 1100048384), ("TinyLlama_v1.1", 1100048384),
             ("llava-v1.6-mistral-7b", 7241732096), ("Llama-2-7b-chat-hf", 6738415616),
             ("CodeLlama-7b-Instruct-hf", 6738546688), ("stablelm-2-zephyr-1_6b", 1644515328),
             ("Yi-1.5-9B-Chat-16K", 8829407232), ("Llama-3.1-8B-Instruct-Q4_K_M", 8030261248),
             ("model-f16", 135 * M), ("model-BF16", 135 * M), ("iq4_xs-test-1B", 1 * B),
             ("Hermes-3-Llama-3.1-8B", 8030261248), ("gemma-2-2b-it", 2614341888),
             ("Llama-3.2-1B-Instruct-lora", 1235814400), ("OLMo-2-1124-7B-Instruct", 7298793472),
             ("granite-3.0-2b-instruct", 2533539840), ("SmolLM-360M", 361821120),
             ("my.model.v2", 1 * M), ("Foo--Bar--7B", 7 * B), ("-leading-dash-1B", 1 * B),
             ("x", 999), ("3B", 3 * B), ("v2", 10 * M), ("iter5-model-1B", 1 * B),
             ("Model-1T", 1 * B), ("Model-1.5T", 1500 * B), ("Model-500k", 500000),
             ("Model-8x22B", 140 * B), ("Model-2x7B-mini", 13 * B), ("Model-7B-large-small", 7 * B),
             ("Model-large", 7 * B), ("model-xxl", 11 * B), ("Model-7B-7B", 7 * B),
             ("Model-32k-7B", 7 * B), ("Model-7B-32K", 7 * B), ("Model-vision-chat-lora", 7 * B),
             ("instruct-model", 7 * B), ("Model-1_5B", 1500 * M), ("Model-7b", 0),
             ("Model-7B-Q8_0", 7 * B), ("Model-FP32-v3.1.2", 7 * B), ("ALLCAPS-MODEL-7B", 7 * B),
             ("mixedCase-model-7B", 7 * B), ("model2b-test", 2 * B), ("über-modèle-7B", 7 * B),
             ("name with spaces 7B", 7 * B), ("model_v1.5_7b", 7 * B), ("Model-V1.5-7B", 7 * B),
             ("Model-A3B", 3 * B), ("Model-30B-A3B", 30 * B), ("Qwen3-30B-A3B-Instruct-2507", 30532122624),
             ("llama-65b", 65 * B), ("llama-7b", 65 * B), ("Model-0.5B", 494032768),
             ("Model-100M-v2-chat-1.0", 100 * M), ("model-1e5", 1 * B)]:
    case(d, t, config={"architectures": ["LlamaForCausalLM"], "model_type": "llama"})

# config.json's _name_or_path (used when it has at most one '/')
for nop, d, t in [("meta-llama/Llama-3.2-1B-Instruct", "snapshot", 1235814400),
                  ("HuggingFaceTB/SmolLM2-135M", "abc123", 134515008),
                  ("Qwen/Qwen2.5-0.5B-Instruct", "Qwen2.5-0.5B-Instruct", 494032768),
                  ("/home/user/models/llama", "Llama-3-8B", 8 * B),
                  ("./local/Llama-7B", "dir-7B", 7 * B),
                  ("../Llama-7B", "dir-7B", 7 * B),
                  ("mistralai/Mixtral-8x7B-v0.1", "m", 46702792704),
                  ("gpt2", "some-dir", 124439808),
                  ("My Fancy Model", "fancy-7B", 7 * B),
                  ("", "empty-name-or-path-1B", 1 * B),
                  ("/SmolLM2-135M", "dir", 134515008),
                  ("org/", "dir-1B", 1 * B),
                  (".hidden/Model-7B", "dir", 7 * B),
                  ("TheBloke/Mistral-7B-Instruct-v0.2-GGUF", "d", 7241732096),
                  ("deepseek-ai/DeepSeek-V2-Lite-Chat", "DeepSeek-V2-Lite-Chat", 15706484224),
                  ("meta-llama/Meta-Llama-3.1-8B-Instruct", "x", 8030261248)]:
    case(d, t, config={"_name_or_path": nop, "model_type": "llama"})
case("null-name-7B", 7 * B, config={"_name_or_path": None})
case("no-config-1B", 1 * B, config=None)

# --model-name
case("SmolLM2-135M", 134515008, config={}, model_name="My Model")
case("SmolLM2-135M", 134515008, config={"_name_or_path": "a/b-1B"}, model_name="")

# the path's last component as pathlib sees it
case("Qwen2.5-0.5B", 494032768, config={}, suffix="/")
case("Qwen2.5-0.5B", 494032768, config={}, suffix="/.")
case("Qwen2.5-0.5B", 494032768, config={}, suffix="//./")

# parameter counts: MoE (experts / shared), no tensors, tiny counts
case("Mixtral-test", tensors=moe(8, 7 * B // 8 * 8 // 8, 1 * B), config={})
case("moe-dir", tensors=moe(64, 23 * M, 300 * M), config={})
case("moe-dir", tensors=moe(128, 1 * M, 2 * B), config={})
case("empty", tensors=[], config={})
case("tiny", total=5, config={})
case("tiny", total=1000, config={})
case("tiny", total=1000001, config={})
case("tiny", total=999999999, config={})
case("tiny", total=999500000, config={})
case("tiny", total=1000000001, config={})
case("tiny", total=12345678901234, config={})
case("scalar", tensors=[["a", []], ["b", [3]]], config={})

# generation_config.json
G = "Llama-3.2-1B-Instruct"
case(G, 1235814400, config={}, gen='{"bos_token_id": 128000, "do_sample": true, "temperature": 0.6, "top_p": 0.9, "transformers_version": "4.45.0"}')
case(G, 1235814400, config={}, gen='{"top_k": 20, "top_p": 0.8, "temperature": 0.7, "repetition_penalty": 1.05, "min_p": 0.0}')
case(G, 1235814400, config={}, gen='{"sequence": "edskypmxt", "top_k": 40, "top_p": 0.95, "min_p": 0.05, "xtc_probability": 0.0, "xtc_threshold": 0.1, "temperature": 0.8, "penalty_last_n": 64, "penalty_repeat": 1.1, "mirostat": 2, "mirostat_tau": 5.0, "mirostat_eta": 0.1}')
case(G, 1235814400, config={}, gen='{"penalty_repeat": null, "repetition_penalty": 1.3, "temperature": 1}')
case(G, 1235814400, config={}, gen='{"repetition_penalty": 1.3, "top_k": null, "sequence": ""}')
case(G, 1235814400, config={}, gen='{"temperature": 0.1234567890123, "top_p": 3.4028235e38, "top_k": -5, "mirostat": true}')
# values the reference cannot write (struct.pack fails): the case records the error
case(G, 1235814400, config={}, gen='{"top_p": 3.5e38}')
case(G, 1235814400, config={}, gen='{"top_k": 1.5}')
case(G, 1235814400, config={}, gen='{"top_k": 2147483648}')
case(G, 1235814400, config={}, gen='{"temperature": "hot"}')
case(G, 1235814400, config={}, gen='{ not json')
case(G, 1235814400, config={}, gen='')
case(G, 1235814400, config={}, gen='[]')
case(G, 1235814400, config={}, gen='{}')

OUT_TYPES = ["F32", "F16", "BF16", "Q8_0", "TQ1_0", "MOSTLY_Q4_K"]


def type_name(t):
    return gguf.GGUFValueType(t).name


def value_of(v):
    if v.type == gguf.GGUFValueType.FLOAT32:
        bits = struct.unpack("<I", struct.pack("<f", v.value))[0]
        return {"f32_bits": bits, "value": struct.unpack("<f", struct.pack("<f", v.value))[0]}
    if v.type == gguf.GGUFValueType.ARRAY:
        return list(v.value)
    if v.type == gguf.GGUFValueType.BOOL:
        return bool(v.value)
    return v.value


def run(c, root):
    d = root / c["dir"]
    d.mkdir(parents=True, exist_ok=True)
    for f in d.iterdir():
        f.unlink()
    if c["config"] is not None:
        (d / "config.json").write_text(json.dumps(c["config"]), encoding="utf-8")
    if c["generation_config_text"] is not None:
        (d / "generation_config.json").write_text(c["generation_config_text"], encoding="utf-8")
    dir_model = Path(str(d) + c["dir_suffix"])

    w = gguf.GGUFWriter(path=None, arch="llama")
    for name, ne in c["tensors"]:
        shape = list(reversed(ne))
        w.add_tensor_info(name, shape, np.dtype(np.float32), 4 * math.prod(shape))
    total, shared, expert, count = w.get_total_parameter_count()
    n_before = len(w.kv_data[0])

    # conversion/base.py ModelBase.prepare_metadata, the metadata part
    md = gguf.Metadata.load(None, dir_model, c["model_name"], total)
    if md.name is None:
        md.name = dir_model.name
    if md.size_label is None and total > 0:
        md.size_label = gguf.size_label(total, shared, expert, count)
    md.set_gguf_meta_model(w)

    try:
        for v in w.kv_data[0].values():  # what write_kv_data_to_file would pack
            w._pack_val(v.value, v.type, add_vtype=True, sub_type=v.sub_type)
    except Exception as e:  # noqa: BLE001 — the conversion would fail here
        return dict(c, error=f"{type(e).__name__}: {e}")
    kv = [[k, type_name(v.type), value_of(v)] for k, v in list(w.kv_data[0].items())[n_before:]]
    names = {t: gguf.naming_convention(md.name, md.basename, md.finetune, md.version, md.size_label, t,
                                       model_type="LoRA" if total < 0 else None) for t in OUT_TYPES}
    names["vocab"] = gguf.naming_convention(md.name, md.basename, md.finetune, md.version,
                                            size_label=None, output_type=None, model_type="vocab")
    return dict(c, params=[total, shared, expert, count], kv=kv, filenames=names)


SIZE_LABELS = [(t, t, 0, 0) for t in
               [0, 1, 5, 999, 1000, 1001, 9999, 10000, 99999, 100000, 999999, 1000000, 1000001, 1049999, 1050000,
                9950000, 9949999, 99500000, 134515008, 135000000, 494032768, 999999999, 1000000000, 1000000001,
                1235814400, 7241732096, 9960000000, 13000000000, 70553706496, 405000000000, 999999999999,
                1000000000000, 1000000000001, 1500000000000, 123456789012345678]]
SIZE_LABELS += [(46702792704, 1602203648, 5637144576, 8), (0, 100, 200, 2), (0, 300 * M, 23 * M, 64),
                (0, -1 * B, 7 * B, 8), (0, 0, 0, 0), (-7 * B, 0, 0, 0)]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cases = [run(c, Path(tmp)) for c in CASES]
    sl = [[t, s, e, n, gguf.size_label(t, s, e, n)] for t, s, e, n in SIZE_LABELS]
    json.dump({"generator": "scripts/make-hf-meta-reference.py",
               "reference": "llama-cpp-python 0.3.36 sdist, vendor/llama.cpp gguf-py",
               "output_types": OUT_TYPES, "size_labels": sl, "cases": cases},
              sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


main()
