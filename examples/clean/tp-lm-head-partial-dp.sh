#!/usr/bin/env bash
# Clean twin of errors/PAR010-tp-lm-head-partial-dp.sh: attention DP 4 over TP 4, a pure
# attention-DP decode server (SGLang turns the TP LM-head all-to-all on there by itself).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --attn-dp-size 4 --disaggregation-mode decode --enable-tp-lm-head-all-to-all
