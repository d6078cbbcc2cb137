#!/usr/bin/env bash
# Twin of errors/ATTN011-replayssm-spec-ragged.sh: the static ragged verify mode, SGLang's default.
set -euo pipefail
export SGLANG_RAGGED_VERIFY_MODE=static
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 \
  --enable-linear-replayssm-spec
