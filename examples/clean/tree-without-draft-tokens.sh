#!/usr/bin/env bash
# Clean twin of errors/SPEC013-tree-without-draft-tokens.sh. topk 2 without --speculative-num-draft-tokens: nothing sets D; hybrid models assert in the state-cache sizing. Clean twin: D = 6.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 2 \
  --speculative-num-draft-tokens 6 \
  --attention-backend fa3
