#!/usr/bin/env bash
# Clean twin of errors/ARG011-config-json.sh: the serving flags on the command line itself (a
# --config would have to be a .yaml file mapping flag names to values).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --mem-fraction-static 0.85
