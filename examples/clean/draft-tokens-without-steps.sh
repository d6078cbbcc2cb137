#!/usr/bin/env bash
# Clean twin of errors/SPEC001-draft-tokens-without-steps.sh: the steps a topk-1 chain of 5 draft tokens has.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 5 --speculative-num-steps 4
