#!/usr/bin/env bash
# Clean twin of errors/PAR008-nemotron-h-attention-cp.sh: Nemotron 3 Nano on 2 GPUs by tensor
# parallelism alone.
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --tp-size 2
