#!/usr/bin/env bash
# The shape of public benchmark recipes: variables first, then a launch in the background.
set -euo pipefail
MODEL_PATH=Qwen/Qwen3-Next-80B-A3B-Instruct
TP=4
SPECULATIVE_NUM_STEPS=3
SPECULATIVE_EAGLE_TOPK=1
SERVER_LOG=/tmp/server.log
export PORT=30000
python3 -m sglang.launch_server \
  --model-path "$MODEL_PATH" \
  --tp-size "$TP" \
  --speculative-algorithm NEXTN \
  --speculative-num-steps "$SPECULATIVE_NUM_STEPS" \
  --speculative-eagle-topk "${SPECULATIVE_EAGLE_TOPK}" \
  --speculative-num-draft-tokens "${DRAFT_TOKENS:-4}" \
  --cuda-graph-max-bs 32 \
  --port "$PORT" > "$SERVER_LOG" 2>&1 &
echo $! > server.pid
