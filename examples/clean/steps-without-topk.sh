#!/usr/bin/env bash
# Clean twin of errors/SPEC012-steps-without-topk.sh. Steps given, topk not: SGLang 0.5.23 stops with TypeError: '>' not supported between instances of 'NoneType' and 'int'. Clean twin: SGLang's documented 3/1/4.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4
