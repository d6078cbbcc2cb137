#!/usr/bin/env bash
# ATTN001: TensorRT-LLM MLA runs on Blackwell only; on an H200 SGLang refuses it (kdacheck lint --gpu h200). Clean twin: clean/trtllm-mla-hopper.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --attention-backend trtllm_mla
