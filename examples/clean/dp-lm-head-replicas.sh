#!/usr/bin/env bash
# Clean twin of errors/PAR006-dp-lm-head-replicas.sh. The DP LM head over two attention-DP workers.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --attn-dp-size 2 \
  --enable-dp-lm-head
