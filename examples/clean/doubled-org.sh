#!/usr/bin/env bash
# Clean twin of errors/MODEL002-doubled-org.sh. The organisation written twice, so the model path is no Hugging Face repo id (two `/`). Clean twin: `moonshotai/Kimi-Linear-48B-A3B-Instruct`.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code
