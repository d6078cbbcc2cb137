#!/usr/bin/env bash
# Twin of errors/RADIX004-lmcache-hicache.sh: the hierarchical cache alone.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --enable-hierarchical-cache
