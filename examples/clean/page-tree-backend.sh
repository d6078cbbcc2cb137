#!/usr/bin/env bash
# Clean twin of errors/SPEC004-page-tree-backend.sh. Tree EAGLE (topk 2) on a paged KV cache (page 16) with the flex_attention backend: ValueError at start. Clean twin: --attention-backend fa3 (SGLang issue 5491's line).
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B \
  --speculative-algorithm EAGLE \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 2 \
  --speculative-num-draft-tokens 8 \
  --page-size 16 \
  --attention-backend fa3 \
  --tp-size 2
