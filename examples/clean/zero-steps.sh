#!/usr/bin/env bash
# Clean twin of errors/SPEC010-zero-steps.sh. NEXTN with 0 steps and 1 draft token: counts must be positive. Clean twin: 1/1/2.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 1 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 2
