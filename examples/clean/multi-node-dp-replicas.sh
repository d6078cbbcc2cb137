#!/usr/bin/env bash
# Clean twin of errors/PAR009-multi-node-dp-replicas.sh: attention DP 2 across the two nodes, one
# model over TP 8 (node 1 runs the same line with --node-rank 1).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 8 --attn-dp-size 2 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
