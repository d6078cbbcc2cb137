#!/usr/bin/env bash
# PAR002: SGLang 0.5.23 refuses two DP replicas combined with attention DP 2 (ValueError). Clean twin: clean/replicas-or-attention-dp.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --dp-size 2 --attn-dp-size 2
