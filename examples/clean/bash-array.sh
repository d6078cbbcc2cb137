#!/usr/bin/env bash
# A launch built from bash arrays: SPEC_ARGS spliced into CMD, CMD run as the command.
set -euo pipefail
SPEC_ARGS=(--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4)
CMD=(
  python3 -m sglang.launch_server
  --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4   # four H100s
  "${SPEC_ARGS[@]}"
)
"${CMD[@]}"
