#!/usr/bin/env bash
# RSSM001: ReplaySSM-spec ring of 16 steps for D = 9 (needs ≥ 2·9): ValueError when the KDA pool is built. Clean twin: ring 32.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm DSPARK \
  --speculative-draft-model-path DRAFT \
  --speculative-dspark-block-size 8 \
  --speculative-num-draft-tokens 9 \
  --enable-linear-replayssm-spec
