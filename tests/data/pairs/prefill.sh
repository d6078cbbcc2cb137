#!/usr/bin/env bash
# The prefill side of a PD deployment whose decode side is decode.sh beside it.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --page-size 64 --disaggregation-mode prefill
