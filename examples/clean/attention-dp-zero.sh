#!/usr/bin/env bash
# Clean twin of errors/PAR011-attention-dp-zero.sh: no attention DP is the default size, 1.
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4
