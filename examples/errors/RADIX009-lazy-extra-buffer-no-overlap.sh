#!/usr/bin/env bash
# RADIX009: the lazy extra-buffer prefix cache with the overlap schedule off: SGLang asserts when it
# sizes the state pool. Clean twin: clean/lazy-extra-buffer-no-overlap.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --mamba-radix-cache-strategy extra_buffer_lazy --disable-overlap-schedule
