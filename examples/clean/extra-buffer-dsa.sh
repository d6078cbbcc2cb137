#!/usr/bin/env bash
# Clean twin of errors/RADIX003-extra-buffer-dsa.sh: the same launch without the hybrid cache strategy.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8
