#!/usr/bin/env bash
# Twin of errors/ATTN010-fp4-indexer-hopper.sh: the default indexer on an H200 (kdacheck lint --gpu h200).
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash \
  --tp-size 8
