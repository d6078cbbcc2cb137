#!/usr/bin/env bash
# Clean twin of errors/RADIX001-nemotron-track-interval.sh: the default track interval (256).
set -euo pipefail
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --tp-size 2 --speculative-algorithm EAGLE --speculative-draft-model-path nvidia/Nemotron-3-Nano-EAGLE3 \
  --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
