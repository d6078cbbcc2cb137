#!/usr/bin/env bash
# Clean twin of errors/GPU001-qwen3-next-fa4-rtx-pro.sh. GPU001: on an RTX PRO 6000 (SM120) SGLang allows a hybrid GDN model triton, trtllm_mha or flashinfer only; fa4, which a B200 takes, stops it when the attention backend is built. Check with --gpu rtx-pro-6000. Clean twin: flashinfer.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --attention-backend flashinfer
