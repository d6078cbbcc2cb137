#!/usr/bin/env bash
# Clean twin of errors/PAR004-chunk-per-attention-dp.sh: attention DP 4 on 8 GPUs, 8192 // 4 = 2048, a multiple of the 64-token page.
# (Attention DP 3 needs a TP size with a factor 3, and DeepSeek-V3.2's 2048-wide experts do not split over 3 or 6 ranks: KDA007.) Check with --gpu h200.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --dp-size 4 --enable-dp-attention
