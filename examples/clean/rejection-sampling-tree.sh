#!/usr/bin/env bash
# Rejection sampling over a draft chain, topk 1 (SPEC019's clean twin: errors/SPEC019-rejection-sampling-tree.sh).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 \
  --speculative-use-rejection-sampling
