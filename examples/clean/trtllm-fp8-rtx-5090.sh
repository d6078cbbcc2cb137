#!/usr/bin/env bash
# Clean twin of errors/GPU002-trtllm-fp8-rtx-5090.sh. GPU002: trtllm_mha's SM120 prefill (FMHAv2) takes no fp8_e4m3 KV cache: refused on an RTX 5090, fine on a B200 or H200. Check with --gpu rtx-5090. Clean twin: flashinfer prefill, trtllm_mha decode.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B \
  --tp-size 4 \
  --kv-cache-dtype fp8_e4m3 \
  --prefill-attention-backend flashinfer --decode-attention-backend trtllm_mha
