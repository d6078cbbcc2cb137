#!/usr/bin/env bash
# KDA010: FlashKDA is prefill-only: an explicit FlashKDA decode backend is a start-up ValueError. Clean twin: clean/flashkda-prefill.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 --linear-attn-decode-backend flashkda
