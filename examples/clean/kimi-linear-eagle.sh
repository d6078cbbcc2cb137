#!/usr/bin/env bash
# Clean twin of errors/SPEC016-kimi-linear-eagle.sh: DSPARK (block size 3, 4 tokens verified per step, as the EAGLE chain 3/1/4), whose worker does not share the target's embedding; Kimi-Linear's model class has its capture hook.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm DSPARK \
  --speculative-draft-model-path /models/kimi-linear-48b-dspark-draft \
  --speculative-dspark-block-size 3 \
  --speculative-num-draft-tokens 4
