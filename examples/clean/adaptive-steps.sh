#!/usr/bin/env bash
# Clean twin of errors/SPEC007-adaptive-steps.sh. --speculative-adaptive with 4 steps: 4 is not among the candidate steps {0,1,3,5,7}. Clean twin: 3 steps.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-adaptive \
  --speculative-num-steps 3
