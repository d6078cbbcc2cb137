#!/usr/bin/env bash
# Clean twin of errors/KDA010-flashkda-prefill.sh: FlashKDA for prefill, decode on triton.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 --linear-attn-prefill-backend flashkda
