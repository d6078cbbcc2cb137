#!/usr/bin/env bash
# RADIX001: Nemotron-3 Nano (Mamba2 hybrid) under the extra_buffer prefix cache with a track interval below the draft width: a bare AssertionError. Clean twin: clean/nemotron-track-interval.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --tp-size 2 --speculative-algorithm EAGLE --speculative-draft-model-path nvidia/Nemotron-3-Nano-EAGLE3 \
  --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --mamba-track-interval 2
