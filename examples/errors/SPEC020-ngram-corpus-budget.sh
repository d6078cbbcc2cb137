#!/usr/bin/env bash
# SPEC020: an external SAM corpus for NGRAM without a SAM budget (its default is 0): SGLang refuses it
# in _handle_ngram. Clean twin: clean/ngram-corpus-budget.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.jsonl
