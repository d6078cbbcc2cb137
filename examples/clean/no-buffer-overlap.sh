#!/usr/bin/env bash
# Clean twin of errors/RADIX002-no-buffer-overlap.sh. no_buffer prefix cache with the overlap schedule on: AssertionError. Clean twin adds --disable-overlap-schedule.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --mamba-radix-cache-strategy no_buffer \
  --disable-overlap-schedule
