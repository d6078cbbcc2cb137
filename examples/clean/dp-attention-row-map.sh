#!/usr/bin/env bash
# Clean twin of errors/KDA002-dp-attention-row-map.sh. The case: tp 8, dp 2 with DP attention, 90 requests = 45 per worker, padded to 48 (three rows all indexed 45); FlashInfer KDA verify without fused accept raises 'FlashInfer KDA verify requires an identity intermediate row-map'. Check with --gpu b200. Clean twin: the same 90 requests on one tp 8 worker, without DP attention (no padding row is read past R; Kimi-Linear under DP attention is KDA008 besides).
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --trust-remote-code \
  --speculative-algorithm DSPARK \
  --speculative-draft-model-path DRAFT \
  --speculative-dspark-block-size 3 \
  --speculative-num-draft-tokens 4 \
  --tp 8 \
  --linear-attn-verify-backend flashinfer \
  --mamba-ssm-dtype bfloat16 \
  --max-running-requests 90
