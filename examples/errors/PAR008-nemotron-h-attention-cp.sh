#!/usr/bin/env bash
# Nemotron 3 Nano (Nemotron-H: Mamba2 layers) with attention context parallelism over 2 ranks:
# SGLang refuses attention CP for Nemotron-H while it resolves context parallelism (PAR008).
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --tp-size 2 --attn-cp-size 2
