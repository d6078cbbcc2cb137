#!/usr/bin/env bash
# Clean twin of errors/SPEC005-trtllm-mha-topk.sh. trtllm_mha only supports topk 1 for speculative decoding. Clean twin: topk 1 (3/1/4).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --attention-backend trtllm_mha
