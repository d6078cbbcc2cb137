#!/usr/bin/env bash
# SPEC006: NGRAM (topk = breadth 10) with page size 64 needs the flashinfer attention backend. Clean twin: --attention-backend flashinfer.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NGRAM \
  --page-size 64 \
  --attention-backend fa3
