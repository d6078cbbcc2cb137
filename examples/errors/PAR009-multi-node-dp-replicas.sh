#!/usr/bin/env bash
# Qwen3-Next over two 4-GPU nodes as two DP replicas (--dp-size 2 --nnodes 2): SGLang runs DP
# replicas on one node only and refuses this in its final argument check (PAR009). Run on node 0;
# node 1 runs the same line with --node-rank 1.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 8 --dp-size 2 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
