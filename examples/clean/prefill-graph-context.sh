#!/usr/bin/env bash
# Clean twin of errors/BUILD004-prefill-graph-context.sh: the prefill graphs' context within the
# model's 8,192 tokens.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --cuda-graph-prefill-max-context 8192
