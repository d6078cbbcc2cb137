#!/usr/bin/env bash
# Clean twin of errors/BUILD001-qwen3-next-fp8-tp8.sh. Qwen3-Next FP8 (block 128×128) at TP 4: 512 / 4 = 128 per rank, one whole block.
set -euo pipefail
python3 -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b-fp8 \
  --tp-size 4
