#!/usr/bin/env bash
# RADIX001: extra_buffer prefix cache (auto: overlap schedule on, triton backend) with --mamba-track-interval 2 < 4 draft tokens: bare AssertionError. Clean twin: interval 256 (default).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --mamba-track-interval 2
