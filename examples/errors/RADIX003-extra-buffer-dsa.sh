#!/usr/bin/env bash
# RADIX003: DeepSeek-V3.2 (DSA) has no mamba state: an explicit extra_buffer strategy is a start-up ValueError (0.5.21+). Clean twin: clean/extra-buffer-dsa.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --mamba-radix-cache-strategy extra_buffer
