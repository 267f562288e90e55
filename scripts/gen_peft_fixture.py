#!/usr/bin/env python3
"""Make tests/data/lora/peft-real/ once with the real `peft` library.

The fixture is a LoRA adapter saved by peft's own save_pretrained for a tiny
llama-architecture model whose dimensions match the base GGUF that
tests/interop/mk_lora_fixtures.c generates (lora_fixtures.h): hidden 64,
intermediate 128, 2 layers, 4 query heads, 2 key/value heads (GQA), vocab 64.
Only the adapter is committed (a few KB); the base weights never matter to the
adapter files, only the dimensions do.

Not run in CI: `pip install peft transformers` pulls torch (several GB). Run by
hand when the fixture must change:
    python3 -m venv venv && venv/bin/pip install peft transformers
    PYTHONHASHSEED=0 venv/bin/python scripts/gen_peft_fixture.py tests/data/lora/peft-real
(PYTHONHASHSEED fixes the order peft writes the target_modules set in.)
Made with torch 2.15.0, peft 0.21.2, transformers 5.24.0.

init_lora_weights=False keeps lora_B at its random nn.Linear init (peft's
default zeroes B, which would make the adapter a no-op); the seed is fixed.
"""
import os
import sys

import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/lora/peft-real"
    torch.manual_seed(20261130)
    cfg = LlamaConfig(
        vocab_size=64,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(cfg)
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
    # save_pretrained also writes a README.md model card; the fixture is the adapter only
    readme = os.path.join(out, "README.md")
    if os.path.exists(readme):
        os.remove(readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
