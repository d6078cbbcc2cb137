#!/usr/bin/env bash
# GPU003: SGLang runs no FP4 KV cache on ROCm: the block-16 FP4 recipe an H200 runs with triton attention is refused on an MI300X. Check with --gpu mi300x. Clean twin: fp8_e4m3.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 2 \
  --attention-backend triton \
  --kv-cache-dtype fp4_mx_block16
