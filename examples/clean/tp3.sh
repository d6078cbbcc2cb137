#!/usr/bin/env bash
# Clean twin of errors/KDA007-tp3.sh. Kimi-Linear's 32 KDA heads do not divide over 3 tensor-parallel ranks. Clean twin: tp 4 (SGLang PR 12469's baseline).
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code
