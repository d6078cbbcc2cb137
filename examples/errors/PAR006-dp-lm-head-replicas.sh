#!/usr/bin/env bash
# PAR006: --enable-dp-lm-head with two DP replicas and no attention DP: an AssertionError while SGLang resolves the parallel layout. Clean twin: attention DP.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --dp-size 2 \
  --enable-dp-lm-head
