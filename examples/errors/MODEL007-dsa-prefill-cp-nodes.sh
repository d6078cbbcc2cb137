#!/usr/bin/env bash
# MODEL007: DeepSeek-V3.2 (DSA) with prefill context parallelism over two nodes (tp 16): SGLang's DeepSeek override asserts tp_size <= 8. Clean twin: clean/dsa-prefill-cp-nodes.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 \
  --enable-prefill-cp --cp-strategy interleave
