#!/usr/bin/env bash
# Clean twin of errors/ATTN006-flex-attention-spec.sh: NGRAM speculation on the triton attention backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --attention-backend triton \
  --speculative-algorithm NGRAM
