#!/usr/bin/env bash
# Clean twin of errors/PAR003-pp-eagle3.sh: EAGLE3 without pipeline parallelism.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --speculative-algorithm EAGLE3 --speculative-draft-model-path lmsys/eagle3-draft
