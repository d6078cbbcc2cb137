#!/usr/bin/env bash
# BUILD004: prefill CUDA graphs captured up to 65,536 tokens of context for a model whose config
# gives 8,192 (max_position_embeddings): SGLang refuses the size while it resolves the CUDA-graph
# configuration. Clean twin: clean/prefill-graph-context.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --cuda-graph-prefill-max-context 65536
