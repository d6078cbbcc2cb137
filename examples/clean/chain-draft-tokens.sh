#!/usr/bin/env bash
# Clean twin of errors/SPEC002-chain-draft-tokens.sh: draft tokens = steps + 1.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
