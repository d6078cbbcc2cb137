#!/usr/bin/env bash
# SPEC001: topk and draft tokens given, steps not: SGLang 0.5.23 auto-chooses all three only when none is given, and stops with a bare AssertionError. Clean twin: `--speculative-num-steps 4` (a topk-1 chain of 5 draft tokens has 4 steps). `kdacheck lint --fix` adds it.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 5
