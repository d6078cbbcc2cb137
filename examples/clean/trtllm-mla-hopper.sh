#!/usr/bin/env bash
# Clean twin of errors/ATTN001-trtllm-mla-hopper.sh: the same launch on an H200 with the attention backend left to SGLang (dsa) (kdacheck lint --gpu h200).
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8
