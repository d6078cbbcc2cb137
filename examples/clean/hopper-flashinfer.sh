#!/usr/bin/env bash
# Clean twin of errors/KDA005-hopper-flashinfer.sh. FlashInfer KDA kernels need SM100+; on an H200 SGLang raises at backend init. Check with --gpu h200. Clean twin: Triton verify (the Kimi-Linear default).
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm DSPARK \
  --speculative-draft-model-path DRAFT \
  --speculative-dspark-block-size 3 \
  --speculative-num-draft-tokens 4
