#!/usr/bin/env bash
# ATTN002: a DSA model (DeepSeek-V3.2) with an fp8_e5m2 KV cache: SGLang asserts bf16 or fp8_e4m3. Clean twin: clean/dsa-kv-dtype.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --kv-cache-dtype fp8_e5m2
