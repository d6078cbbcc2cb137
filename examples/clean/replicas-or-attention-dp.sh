#!/usr/bin/env bash
# Clean twin of errors/PAR002-replicas-or-attention-dp.sh: attention DP 2 alone, one replica.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 --attn-dp-size 2
