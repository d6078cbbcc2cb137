#!/usr/bin/env bash
# The draft sink with its window (SPEC018's clean twin: errors/SPEC018-draft-sink-without-window.sh).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 \
  --speculative-draft-window-size 512 --speculative-draft-sink-size 4
