#!/usr/bin/env bash
# SPEC019: rejection sampling is implemented for a draft chain only, and this draft is a tree
# (topk 2): SGLang refuses it in _handle_eagle_family. Clean twin: clean/rejection-sampling-tree.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 \
  --speculative-use-rejection-sampling
