#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_app_py.sh — runs docs/GUIDE.md's Python example (tests/install/app.py) with
# the peers' venv python (numpy) and the package from python/, and checks what it
# prints. Usage: test_app_py.sh SOURCE_DIR TEST_DATA_DIR   (env: MIO_PY_PEERS, MODELIO_LIBRARY)
set -u
if [ -z "${MIO_PY_PEERS:-}" ]; then
  echo "SKIP: MIO_PY_PEERS is not set (scripts/fetch-py-peers.sh makes the venv)"
  exit 77
fi
W=$PWD/app_py_work
. "$1/tests/tools/lib.sh"
PYTHONPATH=$1/python expect_rc 0 "$MIO_PY_PEERS" "$1/tests/install/app.py" "$2/vocab-gpt-2.gguf" w.safetensors
check '[ "$(sed -n 1p out.txt)" = "modelio 0.1.0: gpt2, 19 fields, 50257 tokens, first '"'"'!'"'"'" ]'
check '[ "$(sed -n 2p out.txt)" = "w [2, 3] float32 sum=15 metadata={'"'"'arch'"'"': '"'"'gpt2'"'"'}" ]'
finish
