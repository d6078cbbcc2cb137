#!/usr/bin/env bash
# Qwen3-Next with its serving flags kept in a JSON file: SGLang's --config merger reads YAML only
# and refuses any other suffix before it opens the file (ARG011).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --config serving.json
