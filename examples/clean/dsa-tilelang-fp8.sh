#!/usr/bin/env bash
# Clean twin of errors/ATTN004-dsa-tilelang-fp8.sh: TileLang for both DSA backends with the FP8 KV cache. Check with --gpu h200.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 \
  --kv-cache-dtype fp8_e4m3 \
  --dsa-prefill-backend tilelang \
  --dsa-decode-backend tilelang
