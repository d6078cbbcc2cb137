#!/usr/bin/env bash
# Clean twin of errors/SPEC017-ngram-torch-native.sh: NGRAM on the triton attention backend, which its verify path supports.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NGRAM \
  --attention-backend triton
