#!/usr/bin/env bash
# SPEC015: SGLang's Nemotron-H model class has no set_eagle3_layers_to_capture, so EAGLE3 stops at model-runner init, after the weights load. Clean twin: EAGLE (no hidden-state capture).
set -euo pipefail
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --tp-size 2 --speculative-algorithm EAGLE3 --speculative-draft-model-path my-org/nemotron-3-nano-draft \
  --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
