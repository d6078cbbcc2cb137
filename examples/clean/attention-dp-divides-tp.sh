#!/usr/bin/env bash
# Clean twin of errors/PAR001-attention-dp-divides-tp.sh: attention DP 2 divides tp 4.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 --attn-dp-size 2
