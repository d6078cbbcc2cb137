#!/usr/bin/env bash
# ATTN004: an FP8 KV cache with TileLang as the DSA prefill backend only: SGLang 0.5.23 refuses to start with "CUDA TileLang FP8 KV requires both DSA backends to be tilelang" (the decode side defaults to flashmla_kv on Hopper). Check with --gpu h200. Clean twin: tilelang on both sides.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 \
  --kv-cache-dtype fp8_e4m3 \
  --dsa-prefill-backend tilelang
