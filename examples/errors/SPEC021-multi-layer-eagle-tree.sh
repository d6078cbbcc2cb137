#!/usr/bin/env bash
# SPEC021: multi-layer EAGLE verifies steps + 1 tokens, and a tree (topk 2) keeps the 6 draft tokens
# given: the draft worker asserts when SGLang builds it. Clean twin: clean/multi-layer-eagle-tree.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --enable-multi-layer-eagle \
  --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6
