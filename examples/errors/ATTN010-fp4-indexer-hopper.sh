#!/usr/bin/env bash
# ATTN010: DeepSeek-V4's FP4 indexer on an H200 (kdacheck lint --gpu h200): SGLang refuses it off SM100, SM12x and gfx95. Clean twin: clean/fp4-indexer-hopper.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash \
  --tp-size 8 --enable-deepseek-v4-fp4-indexer
