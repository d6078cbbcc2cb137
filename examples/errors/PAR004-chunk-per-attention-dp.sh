#!/usr/bin/env bash
# PAR004: DeepSeek-V3.2 with attention DP 3 on an H200: SGLang 0.5.23 divides the 8192-token chunked prefill by 3 (2730), which is not a multiple of DSA's 64-token page, and stops with "chunked_prefill_size must be divisible by page_size". Check with --gpu h200. Clean twin: a chunked prefill of 8064 (2688 per worker). (SGLang would also refuse to build it: its 2048-wide experts do not split over 6 ranks, KDA007.)
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 6 --dp-size 3 --enable-dp-attention
