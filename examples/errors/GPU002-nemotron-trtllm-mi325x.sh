#!/usr/bin/env bash
# GPU002: trtllm_mha is a CUDA backend (Hopper, SM100, SM12x): a Nemotron-3 launch an H200 takes is refused on an MI325X. Check with --gpu mi325x. Clean twin: aiter, SGLang's default on ROCm.
set -euo pipefail
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 \
  --trust-remote-code \
  --attention-backend trtllm_mha
