#!/usr/bin/env bash
# SPEC018: a StreamingLLM sink for the draft without the draft window it belongs to: SGLang refuses
# it while it resolves the speculative arguments. Clean twin: clean/draft-sink-without-window.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 \
  --speculative-draft-sink-size 4
