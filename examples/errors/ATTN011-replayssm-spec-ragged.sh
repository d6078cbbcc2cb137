#!/usr/bin/env bash
# ATTN011: ReplaySSM spec-verify under SGLANG_RAGGED_VERIFY_MODE=compact with an NEXTN chain on Qwen3-Next: SGLang refuses (only DSPARK/DFLASH with a triton or nv_cutedsl verify write the ring in a ragged layout). Clean twin: clean/replayssm-spec-ragged.sh.
set -euo pipefail
export SGLANG_RAGGED_VERIFY_MODE=compact
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 \
  --enable-linear-replayssm-spec
