#!/usr/bin/env bash
# Qwen3-Next-80B-A3B with its MTP head as the draft (NEXTN), as in SGLang's documentation.
# Clean apart from SGLang's own default of 48 running requests (reported as info).
set -euo pipefail

python3 -m sglang.launch_server \
  --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --speculative-algorithm NEXTN
