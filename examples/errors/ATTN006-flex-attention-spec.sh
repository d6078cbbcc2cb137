#!/usr/bin/env bash
# ATTN006: torch's Flex Attention backend with NGRAM speculation: SGLang 0.5.23 refuses to start with "Speculative decoding is currently not supported with Flex Attention backend". Clean twin: the triton backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --attention-backend flex_attention \
  --speculative-algorithm NGRAM
