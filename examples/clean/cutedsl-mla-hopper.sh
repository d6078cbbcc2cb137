#!/usr/bin/env bash
# Clean twin of errors/ATTN008-cutedsl-mla-hopper.sh: the same launch on an H200 with the attention backend left to SGLang (kdacheck lint --gpu h200); on a B200, `--attention-backend cutedsl_mla` starts.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8
