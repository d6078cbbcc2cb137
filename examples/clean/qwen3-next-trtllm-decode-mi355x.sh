#!/usr/bin/env bash
# Clean twin of errors/GPU002-qwen3-next-trtllm-decode-mi355x.sh. GPU002: trtllm_mha as the decode backend needs a CUDA GPU (Hopper, SM100, SM12x): refused on an MI355X. Check with --gpu mi355x. Clean twin: the decode backend left to SGLang (aiter on ROCm).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4
