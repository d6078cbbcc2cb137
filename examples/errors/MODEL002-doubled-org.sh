#!/usr/bin/env bash
# MODEL002: the organisation written twice, so the model path is no Hugging Face repo id (two `/`). Clean twin: `moonshotai/Kimi-Linear-48B-A3B-Instruct`.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code
