#!/usr/bin/env bash
# BUILD001: Qwen3-Next FP8 (block 128×128) at TP 8: each rank's share of the 512-wide experts is 64, not a whole 128 block
# (sglang#10852). Clean twin: TP 4 (128 per rank). The config is tests/data/models/qwen3-next-80b-fp8 (hand-made, SOURCES.md).
set -euo pipefail
python3 -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b-fp8 \
  --tp-size 8
