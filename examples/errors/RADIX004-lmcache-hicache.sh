#!/usr/bin/env bash
# RADIX004: LMCache and the hierarchical cache together: SGLang 0.5.21+ refuses the pair ("mutually exclusive"). Clean twin: clean/lmcache-hicache.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --enable-lmcache --enable-hierarchical-cache
