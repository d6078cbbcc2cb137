#!/usr/bin/env bash
# Kimi-Linear with attention DP turned "off" by a size of 0: SGLang counts attention-DP groups from
# 1 (no attention DP) and refuses 0 when it resolves the parallel layout (PAR011).
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 --attn-dp-size 0
