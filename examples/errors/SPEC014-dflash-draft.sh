#!/usr/bin/env bash
# SPEC014: DFLASH without a draft model path is a start-up ValueError. Clean twin: clean/dflash-draft.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --speculative-algorithm DFLASH
