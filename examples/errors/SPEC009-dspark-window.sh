#!/usr/bin/env bash
# SPEC009: DSPARK with gamma 7 verifies 8 tokens; --speculative-num-draft-tokens 4 is refused. Clean twin: 8.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm DSPARK \
  --speculative-draft-model-path DRAFT \
  --speculative-dspark-block-size 7 \
  --speculative-num-draft-tokens 4
