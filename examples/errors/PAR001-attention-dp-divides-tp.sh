#!/usr/bin/env bash
# PAR001: attention DP 4 does not divide tp 2: SGLang asserts tp_size % attn_dp_size == 0 (bare AssertionError). Clean twin: clean/attention-dp-divides-tp.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 2 --attn-dp-size 4
