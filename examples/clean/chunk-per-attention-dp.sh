#!/usr/bin/env bash
# Clean twin of errors/PAR004-chunk-per-attention-dp.sh: 8064 // attention DP 3 = 2688, a multiple of the 64-token page. Check with --gpu h200.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 6 --dp-size 3 --enable-dp-attention --chunked-prefill-size 8064
