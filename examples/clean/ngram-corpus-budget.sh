#!/usr/bin/env bash
# NGRAM's external SAM corpus with a budget of at most draft tokens - 1 = 11 (SPEC020's clean twin:
# errors/SPEC020-ngram-corpus-budget.sh).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.jsonl \
  --speculative-ngram-external-sam-budget 8
