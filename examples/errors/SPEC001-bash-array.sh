#!/usr/bin/env bash
# SPEC001 from a bash array: the speculative flags live in SPEC_ARGS, spliced into the CMD array,
# which is itself the command. topk and draft tokens without steps: SGLang asserts at start.
# Clean twin: --speculative-num-steps 3 in the array.
set -euo pipefail
SPEC_ARGS=(--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4)
CMD=(
  python3 -m sglang.launch_server
  --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4   # four H100s
  "${SPEC_ARGS[@]}"
)
"${CMD[@]}"
