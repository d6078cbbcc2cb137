#!/usr/bin/env bash
# Clean twin of errors/ATTN005-fp4-kv-fa3.sh: the block-16 FP4 KV cache with the triton attention backend, one SGLang lists for it. Check with --gpu h200.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --kv-cache-dtype fp4_mx_block16 \
  --attention-backend triton
