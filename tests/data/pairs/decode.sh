#!/usr/bin/env bash
# The decode side of a PD deployment whose prefill side is prefill.sh beside it: another page size.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --page-size 32 --disaggregation-mode decode
