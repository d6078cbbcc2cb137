#!/usr/bin/env bash
# ATTN003: an nvfp4 KV cache on an H200 (SM90): SGLang 0.5.23 refuses to start with "--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120". Check with --gpu h200. Clean twin: fp4_mx_block16, the block-16 FP4 recipe Hopper runs.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --kv-cache-dtype nvfp4 \
  --attention-backend triton
