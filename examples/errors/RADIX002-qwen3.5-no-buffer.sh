#!/usr/bin/env bash
# RADIX002: Qwen3.5 (GDN hybrid) MTP with the no_buffer prefix cache and the overlap schedule on: SGLang asserts at start-up. Clean twin: clean/qwen3.5-no-buffer.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B \
  --tp-size 8 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 \
  --mamba-radix-cache-strategy no_buffer
