#!/usr/bin/env bash
# Clean twin of errors/BUILD002-llama-context.sh. Llama-3-8B at the context length its config gives (8192).
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --context-length 8192
