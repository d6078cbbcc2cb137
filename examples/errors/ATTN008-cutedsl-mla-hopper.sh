#!/usr/bin/env bash
# ATTN008: tokenspeed_mla, which SGLang 0.5.23 renames cutedsl_mla, runs on SM100 only; on an H200 SGLang refuses it (kdacheck lint --gpu h200). Clean twin: clean/cutedsl-mla-hopper.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --attention-backend tokenspeed_mla
