#!/usr/bin/env bash
# Twin of errors/RADIX009-lazy-extra-buffer-no-overlap.sh: the lazy extra buffer keeps the overlap schedule.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --mamba-radix-cache-strategy extra_buffer_lazy
