#!/usr/bin/env bash
# Twin of errors/RADIX006-int8-mamba-hicache.sh: the int8 checkpoint pool with the built-in radix cache.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-int8-mamba-checkpoint
