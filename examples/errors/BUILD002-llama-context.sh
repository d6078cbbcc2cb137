#!/usr/bin/env bash
# BUILD002: Llama-3-8B's config derives a context length of 8192 (max_position_embeddings, no rope scaling); 32768 is refused
# unless the server's environment sets SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1. Clean twin: --context-length 8192.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --context-length 32768
