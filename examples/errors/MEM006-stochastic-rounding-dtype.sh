#!/usr/bin/env bash
# MEM006: stochastic rounding of the Mamba SSM cache without --mamba-ssm-dtype float16: SGLang
# refuses it at start. Clean twin: clean/stochastic-rounding-dtype.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B \
  --enable-mamba-cache-stochastic-rounding --mamba-backend flashinfer
