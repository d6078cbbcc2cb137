#!/usr/bin/env bash
# Clean twin of errors/ARG003-abbreviations.sh: full flag names.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 --trust-remote-code \
  --speculative-algorithm DSPARK --speculative-draft-model-path DRAFT --speculative-dspark-block-size 3 --speculative-num-draft-tokens 4
