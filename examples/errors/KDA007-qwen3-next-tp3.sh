#!/usr/bin/env bash
# KDA007: Qwen3-Next's 16 attention heads do not divide over 3 tensor-parallel ranks (srt/models/qwen3_next.py asserts it when
# the model is built). Clean twin: tp 4.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 3
