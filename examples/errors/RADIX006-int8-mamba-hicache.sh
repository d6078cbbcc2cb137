#!/usr/bin/env bash
# RADIX006: the int8 Mamba checkpoint pool with the hierarchical cache, whose host offload is not
# int8-aware: SGLang refuses it at start. Clean twin: clean/int8-mamba-hicache.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B \
  --enable-int8-mamba-checkpoint --enable-hierarchical-cache
