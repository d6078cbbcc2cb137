#!/usr/bin/env bash
# Clean twin of errors/KDA004-sm100-ssm-dtype.sh. FlashInfer verify on a B200 without --mamba-ssm-dtype bfloat16: ValueError at start. Check with --gpu b200. Clean twin adds the flag.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm DSPARK \
  --speculative-draft-model-path DRAFT \
  --speculative-dspark-block-size 3 \
  --speculative-num-draft-tokens 4 \
  --linear-attn-verify-backend flashinfer \
  --mamba-ssm-dtype bfloat16
