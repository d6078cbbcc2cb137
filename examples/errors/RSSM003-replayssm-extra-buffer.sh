#!/usr/bin/env bash
# RSSM003: --enable-linear-replayssm with the default prefix cache: auto picks extra_buffer (the overlap schedule is on), which ReplaySSM decode refuses with a ValueError at start. Clean twin: no_buffer with the overlap schedule off.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --enable-linear-replayssm
