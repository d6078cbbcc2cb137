#!/usr/bin/env bash
# GPU001: a DGX Spark's GB10 is SM121, which SGLang's is_sm120 counts as SM120: a Qwen3.5 GDN model with fa4 (fine on a B200) is refused when the attention backend is built. Check with --gpu gb10. Clean twin: triton.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B \
  --attention-backend fa4
