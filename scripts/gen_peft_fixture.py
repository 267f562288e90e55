#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make the LoRA fixtures that need the real `peft` library (once, by hand).

1. tests/data/lora/peft-real/ and peft-real-embed/ (mode `adapter`): LoRA
adapters saved by peft's own save_pretrained for a tiny llama-architecture
model whose dimensions match the base GGUF that
tests/interop/mk_lora_fixtures.c generates (lora_fixtures.h): hidden 64,
intermediate 128, 2 layers, 4 query heads, 2 key/value heads (GQA), vocab 64.
Only the adapter is committed (a few KB); the base weights never matter to the
adapter files, only the dimensions do.

2. tests/data/lora/hf-logits/ (mode `logits`): golden logits computed by
transformers + peft in f32 for the token ids of interop_lora.c, from the base
mk_lora_fixtures writes as a Hugging Face checkpoint (base-hf.safetensors, q/k
rows in HF order) alone (base.f32) and with each PEFT adapter loaded by
PeftModel.from_pretrained (<name>.f32): the hand-made fixtures' configs
(rsLoRA, rank_pattern/alpha_pattern) are read by peft itself, and
interop_lora compares llama.cpp's logits of the merged GGUF against these.
Each file is 8 positions x 64 vocab little-endian f32, row-major.

Not run in CI: `pip install peft transformers` pulls torch (several GB). Run by
hand when a fixture must change (the golden logits must be remade whenever
mk_lora_fixtures.c / lora_fixtures.h change the base or an adapter):
    python3 -m venv venv && venv/bin/pip install peft transformers
    PYTHONHASHSEED=0 venv/bin/python scripts/gen_peft_fixture.py adapter tests/data/lora/peft-real
    build/tests/interop/mk_lora_fixtures /tmp/lora_fx
    venv/bin/python scripts/gen_peft_fixture.py logits /tmp/lora_fx tests/data/lora/hf-logits
(PYTHONHASHSEED fixes the order peft writes the target_modules set in.)
Made with torch 2.15.0, peft 0.21.2, transformers 5.24.0.

init_lora_weights=False keeps lora_B at its random nn.Linear init (peft's
default zeroes B, which would make the adapter a no-op); the seed is fixed.
"""
import os
import struct
import sys

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from safetensors.torch import load_file
from transformers import LlamaConfig, LlamaForCausalLM

# interop_lora.c's TOKENS
TOKENS = [1, 12, 40, 7, 33, 20, 58, 4]
# the PEFT adapters of lora_fixtures.h (peft-real lives in tests/data/lora)
PEFT_FIXTURES = ["peft-r1-qv", "peft-r8-all", "peft-r4-rslora", "peft-r4-pattern"]


def tiny_config() -> LlamaConfig:
    # lora_fixtures.h: LF_EMBD, LF_FF, LF_LAYER, LF_HEAD, LF_HEAD_KV, LF_VOCAB, LF_CTX;
    # rope theta 10000 and rms eps 1e-5 as the base GGUF (llama.cpp's llama defaults)
    return LlamaConfig(
        vocab_size=64,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        rms_norm_eps=1e-5,
        rope_theta=10000.0,
        tie_word_embeddings=False,
        attn_implementation="eager",
    )


def write_logits(path: str, logits: torch.Tensor) -> None:
    flat = logits.reshape(-1).tolist()
    assert len(flat) == len(TOKENS) * 64
    with open(path, "wb") as fp:
        fp.write(struct.pack("<%df" % len(flat), *flat))


def base_model(fx_dir: str) -> LlamaForCausalLM:
    model = LlamaForCausalLM(tiny_config()).float()
    state = load_file(os.path.join(fx_dir, "base-hf.safetensors"))
    model.load_state_dict(state, strict=True)
    return model.eval()


def run(model) -> torch.Tensor:
    with torch.no_grad():
        return model(torch.tensor([TOKENS])).logits[0].float()


def logits_mode(fx_dir: str, out: str, peft_real: str) -> int:
    os.makedirs(out, exist_ok=True)
    write_logits(os.path.join(out, "base.f32"), run(base_model(fx_dir)))
    for name in PEFT_FIXTURES + ["peft-real", "peft-real-embed"]:
        src = peft_real + name[len("peft-real"):] if name.startswith("peft-real") else os.path.join(fx_dir, name)
        model = PeftModel.from_pretrained(base_model(fx_dir), src)
        write_logits(os.path.join(out, name + ".f32"), run(model.eval()))
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("adapter", "logits") or (sys.argv[1] == "logits" and len(sys.argv) < 3):
        print("usage: gen_peft_fixture.py adapter [OUT_DIR] | logits FIXTURE_DIR [OUT_DIR]", file=sys.stderr)
        return 2
    if sys.argv[1] == "logits":
        fx = sys.argv[2]
        out = sys.argv[3] if len(sys.argv) > 3 else "tests/data/lora/hf-logits"
        real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "lora", "peft-real")
        return logits_mode(fx, out, real)
    out = sys.argv[2] if len(sys.argv) > 2 else "tests/data/lora/peft-real"
    torch.manual_seed(20261130)
    model = LlamaForCausalLM(tiny_config())
    lcfg = LoraConfig(
        r=2,
        lora_alpha=1,
        lora_dropout=0.0,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        init_lora_weights=False,
        task_type="CAUSAL_LM",
    )
    peft_model = get_peft_model(model, lcfg)
    os.makedirs(out, exist_ok=True)
    peft_model.save_pretrained(out)
    strip_readme(out)

    # peft-real-embed: the token embedding and lm_head too (PEFT's
    # lora_embedding_A/B), with q/k for the GQA permutation; saved without the
    # full embedding copies save_embedding_layers="auto" would add (base_layer)
    torch.manual_seed(20261201)
    model = LlamaForCausalLM(tiny_config())
    lcfg = LoraConfig(
        r=2,
        lora_alpha=4,
        lora_dropout=0.0,
        target_modules=["embed_tokens", "lm_head", "q_proj", "k_proj"],
        init_lora_weights=False,
        task_type="CAUSAL_LM",
    )
    peft_model = get_peft_model(model, lcfg)
    out2 = out.rstrip("/") + "-embed"
    os.makedirs(out2, exist_ok=True)
    peft_model.save_pretrained(out2, save_embedding_layers=False)
    strip_readme(out2)
    return 0


def strip_readme(out: str) -> None:
    # save_pretrained also writes a README.md model card; the fixture is the adapter only
    readme = os.path.join(out, "README.md")
    if os.path.exists(readme):
        os.remove(readme)


if __name__ == "__main__":
    sys.exit(main())
