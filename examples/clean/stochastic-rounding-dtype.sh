#!/usr/bin/env bash
# Twin of errors/MEM006-stochastic-rounding-dtype.sh: float16 SSM states, the FlashInfer Mamba backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B \
  --enable-mamba-cache-stochastic-rounding --mamba-backend flashinfer --mamba-ssm-dtype float16
