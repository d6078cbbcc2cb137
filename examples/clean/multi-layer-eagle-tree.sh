#!/usr/bin/env bash
# Multi-layer EAGLE with draft tokens = steps + 1 (SPEC021's clean twin: errors/SPEC021-multi-layer-eagle-tree.sh).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --enable-multi-layer-eagle \
  --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 4
