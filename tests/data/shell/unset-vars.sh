#!/usr/bin/env bash
# TP and STEPS come from the environment the script runs in.
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size "$TP" \
  --speculative-algorithm EAGLE --speculative-num-steps "$STEPS" --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
