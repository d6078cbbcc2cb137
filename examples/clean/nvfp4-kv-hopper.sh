#!/usr/bin/env bash
# Clean twin of errors/ATTN003-nvfp4-kv-hopper.sh: the block-16 FP4 KV cache, which SGLang runs on Hopper with the triton backend. Check with --gpu h200.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --kv-cache-dtype fp4_mx_block16 \
  --attention-backend triton
