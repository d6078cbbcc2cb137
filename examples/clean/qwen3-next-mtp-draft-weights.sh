#!/usr/bin/env bash
# Clean twin of errors/MEM002-qwen3-next-mtp-draft-weights.sh (lint with --gpu h100): the same static pool and 4 draft tokens, drafted by NGRAM from the prompt: no draft weights, and the state pool fits.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --mem-fraction-static 0.48 \
  --speculative-algorithm NGRAM \
  --speculative-num-draft-tokens 4
