#!/usr/bin/env bash
# ATTN007: LFM2 (the short-conv hybrid) on the triton attention backend: SGLang 0.5.23 refuses to start with "Lfm2ForCausalLM does not support triton attention backend, as the first layer might not be an attention layer". Clean twin: SGLang's own choice of backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path LiquidAI/LFM2.5-1.2B-Instruct \
  --attention-backend triton \
  --speculative-algorithm NGRAM
