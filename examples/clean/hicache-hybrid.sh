#!/usr/bin/env bash
# Twin of errors/RADIX008-hicache-hybrid.sh: the hybrid model with the device radix cache alone.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B
