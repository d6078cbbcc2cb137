#!/usr/bin/env bash
# KDA003: NGRAM's default breadth 10 makes topk 10; FlashInfer KDA verify supports topk 1 only. Check with --gpu b200. Clean twin: breadth 1.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm NGRAM \
  --linear-attn-verify-backend flashinfer \
  --mamba-ssm-dtype bfloat16
