#!/usr/bin/env bash
# Clean twin of errors/KDA007-qwen3-next-tp3.sh. Qwen3-Next at tp 4: 4 attention heads, 8 linear-attention value heads per rank.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4
