#!/usr/bin/env bash
# Clean twin of errors/PAR002-replicas-or-attention-dp.sh: attention DP 2 alone, one replica. (Qwen3-Next: Kimi-Linear under attention DP is KDA008.)
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --attn-dp-size 2
