#!/usr/bin/env bash
# Clean twin of errors/ATTN007-lfm2-triton.sh: LFM2 with NGRAM speculation on the attention backend SGLang picks.
set -euo pipefail
python3 -m sglang.launch_server --model-path LiquidAI/LFM2.5-1.2B-Instruct \
  --speculative-algorithm NGRAM
