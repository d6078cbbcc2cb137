#!/usr/bin/env bash
# Clean twin of errors/ATTN002-dsa-kv-dtype.sh: the FP8 KV cache DSA supports.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --kv-cache-dtype fp8_e4m3
