#!/usr/bin/env bash
# MODEL008: DeepSeek-V4 with prefill context parallelism and no --cp-strategy: SGLang's validate_deepseek_v4_cp refuses ("DeepSeekV4 only supports interleave/zigzag CP strategy, got None"). Clean twin: clean/v4-cp-strategy.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash \
  --tp-size 8 --enable-prefill-cp
