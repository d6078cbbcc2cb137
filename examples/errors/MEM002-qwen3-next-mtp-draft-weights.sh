#!/usr/bin/env bash
# MEM002 (lint with --gpu h100): Qwen3-Next-80B over four 80 GB H100s with NEXTN (its MTP layer) and --mem-fraction-static 0.48. SGLang counts the draft's weights in its memory solve ("If using speculative decoding, draft weights are now counted": 0.5.23 kv_cache_configurator.py L3042-3057): the target's 37.3 GiB per rank fit the static pool, the MTP layer's 0.8 GiB more do not, and the hybrid state pool gets max_mamba_cache_size 0: "Not enough GPU memory for hybrid (mamba/linear-attention) state cache". The memory table lists the draft weights. Clean twin: NGRAM with the same 4 draft tokens, which loads no draft model.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --mem-fraction-static 0.48 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4
