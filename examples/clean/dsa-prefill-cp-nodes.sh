#!/usr/bin/env bash
# Twin of errors/MODEL007-dsa-prefill-cp-nodes.sh: prefill context parallelism within one node (tp 8).
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --enable-prefill-cp --cp-strategy interleave
