#!/usr/bin/env bash
# Twin of errors/MODEL008-v4-cp-strategy.sh: the interleave strategy, within one node, no attention DP.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash \
  --tp-size 8 --enable-prefill-cp --cp-strategy interleave
