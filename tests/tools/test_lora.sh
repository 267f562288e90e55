#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lora.sh — mio-export-gguf --adapters / --alpha / --lora-gguf (issue 10):
# exit statuses, the summary line, merged values seen through mio-inspect
# --stats, refusals with nothing written, and --adapters combined with a
# quantizer flag as a usage error. The inputs come from `test_lora --fixtures`
# (a 7-tensor llama base, a quantized one, Fucina and PEFT adapters); the
# per-element values are test_lora's (the unit test).
# Usage: test_lora.sh MIO_EXPORT MIO_INSPECT TEST_LORA
set -u
EXPORT=$1 INSPECT=$2 TLORA=$3
W=$PWD/tools_lora_work
. "$(dirname "$0")/lib.sh"
"$TLORA" --fixtures || { echo "fixtures failed"; exit 1; }

# 1. Fucina merge, f32 base: blk.0.ffn_down.weight W[o][i] = 3o+i plus 2*B[o]*A[i]
#    (A = 1 2 3, B = 1 -1 0.5 2, alpha 2, r 1) = 2 5 8 / 1 0 -1 / 7 9 11 / 13 18 23:
#    min -1, max 23, mean 96/12 = 8. Every other tensor is unchanged.
expect_rc 0 "$EXPORT" --from-gguf base.gguf --out m.gguf --adapters fuc1.safetensors --alpha 2
check 'grep -q "^mio-export-gguf: wrote m.gguf: merged 1 LoRA module (rank 1, scale 2)$" err.txt'
"$INSPECT" --stats m.gguf > stats.txt
check 'grep -qE "^f32 +-1 +23 +8 .* blk\.0\.ffn_down\.weight \[4, 3\]$" stats.txt'
"$INSPECT" --diff base.gguf m.gguf > diff.txt; rc=$?
check '[ $rc -eq 1 ]'
check 'grep -q "ffn_down" diff.txt'
check '! grep -qE "attn_q|attn_k|attn_v|ffn_up|token_embd|output_norm" diff.txt'
check '[ "$(stat -c %s base.gguf)" -eq "$(stat -c %s m.gguf)" ]'
# --quiet: no summary; --alpha=F form; '-' streams the same bytes
expect_rc 0 "$EXPORT" --quiet --from-gguf base.gguf --out m2.gguf --adapters=fuc1.safetensors --alpha=2
check '[ ! -s err.txt ] && cmp -s m.gguf m2.gguf'
"$EXPORT" --from-gguf base.gguf --out - --adapters fuc1.safetensors --alpha 2 > m3.gguf 2>err.txt
check 'cmp -s m.gguf m3.gguf'

# 2. PEFT merge (q/k permuted on a llama base) and the llama.cpp adapter
expect_rc 0 "$EXPORT" --from-gguf base.gguf --out mp.gguf --adapters peft_qk
check 'grep -q "merged 2 LoRA modules (rank 1, scale 1); q/k rows permuted in 2$" err.txt'
expect_rc 0 "$EXPORT" --from-gguf base.gguf --out ad.gguf --adapters peft_qk --lora-gguf
check 'grep -q "wrote ad.gguf: llama.cpp LoRA adapter, 2 modules (rank 1, scale 1), adapter.lora.alpha = 1; q/k rows permuted in 2$" err.txt'
"$INSPECT" ad.gguf --meta --tensors > ad.txt
check 'grep -q "general.type .*adapter" ad.txt'
check 'grep -q "adapter.type .*lora" ad.txt'
check 'grep -qE "adapter.lora.alpha +f32 +1$" ad.txt'
check 'grep -q "blk.0.attn_q.weight.lora_a" ad.txt && grep -q "blk.0.attn_k.weight.lora_b" ad.txt'
# an adapter for a quantized base is fine; --alpha overrides the config's
expect_rc 0 "$EXPORT" --from-gguf base_q8.gguf --out adq.gguf --adapters fuc1.safetensors --alpha 4 --lora-gguf
check 'grep -q "adapter.lora.alpha = 4" err.txt'

# 3. usage errors: exit 2, nothing written
for extra in "--dtype f16" "--preset Q8_0" "--experts-dtype q8_0" "--threads 2" "--pure" "--dry-run"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$EXPORT" --from-gguf base.gguf --out u.gguf --adapters fuc1.safetensors --alpha 2 $extra
  check "grep -q -- '--adapters cannot be combined with ${extra%% *} in one run' err.txt"
  check '[ ! -e u.gguf ]'
done
expect_rc 2 "$EXPORT" --from-gguf base.gguf --out u.gguf --alpha 2
check 'grep -q -- "--alpha needs --adapters PATH" err.txt'
expect_rc 2 "$EXPORT" --from-gguf base.gguf --out u.gguf --lora-gguf
check 'grep -q -- "--lora-gguf needs --adapters PATH" err.txt'
expect_rc 2 "$EXPORT" --from-gguf base.gguf --out u.gguf --adapters fuc1.safetensors --alpha two
check 'grep -q -- "--alpha takes a finite number, not .two." err.txt'
expect_rc 2 "$EXPORT" --from-gguf base.gguf --adapters fuc1.safetensors --alpha 2
expect_rc 2 "$EXPORT" --from-gguf base.gguf --out u.gguf --adapters
check '[ ! -e u.gguf ]'
cp base.gguf same.gguf
expect_rc 2 "$EXPORT" --from-gguf same.gguf --out same.gguf --adapters fuc1.safetensors --alpha 2
check 'cmp -s base.gguf same.gguf'

# 4. refusals: exit 1 with the library's message, nothing written
expect_rc 1 "$EXPORT" --from-gguf base_q8.gguf --out r.gguf --adapters peft_qk
check 'grep -q "^mio-export-gguf: base tensor .blk.0.attn_q.weight. is q8_0: a LoRA merge needs an f32/f16/bf16 base (QuantizedBaseUnsupported): merge on an f32/f16/bf16 base, then quantize in a second pass" err.txt'
expect_rc 1 "$EXPORT" --from-gguf base.gguf --out r.gguf --adapters fuc1.safetensors
check 'grep -q "a Fucina adapter stores no alpha" err.txt'
expect_rc 1 "$EXPORT" --from-gguf base.gguf --out r.gguf --adapters lone.safetensors --alpha 1
check 'grep -q "module .layers.0.down. has an A matrix but no B" err.txt'
expect_rc 1 "$EXPORT" --from-gguf base.gguf --out r.gguf --adapters empty.safetensors --alpha 1 --lora-gguf
check 'grep -q "empty adapter set" err.txt'
expect_rc 1 "$EXPORT" --from-gguf base.gguf --out r.gguf --adapters no_such_adapter --alpha 1
check 'grep -q "adapter no_such_adapter: no such file or directory" err.txt'
check '[ ! -e r.gguf ] && [ -z "$(ls | grep -E "tmp|mio-")" ]'
# a failure leaves an existing output as it was
printf 'old' > keep.gguf
expect_rc 1 "$EXPORT" --from-gguf base_q8.gguf --out keep.gguf --adapters peft_qk
check '[ "$(cat keep.gguf)" = old ]'
finish
