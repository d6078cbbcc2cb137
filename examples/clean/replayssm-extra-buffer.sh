#!/usr/bin/env bash
# Clean twin of errors/RSSM003-replayssm-extra-buffer.sh. ReplaySSM decode needs the no_buffer prefix cache (and no_buffer the overlap schedule off).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --mamba-radix-cache-strategy no_buffer \
  --disable-overlap-schedule \
  --enable-linear-replayssm
