#!/usr/bin/env bash
# SPEC002: with topk 1 SGLang 0.5.23 sets the draft tokens to steps + 1 = 4 whatever the flag says (8), and logs a warning: buffers and CUDA graphs are sized for 4. Clean twin: 4. `kdacheck lint --fix` writes it.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8
