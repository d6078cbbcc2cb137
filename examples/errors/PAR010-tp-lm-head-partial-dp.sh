#!/usr/bin/env bash
# A Qwen3-Next PD decode server with attention DP 2 inside TP 4 and the TP LM-head all-to-all
# asked for: that path needs attention DP over the whole TP group (attention DP = TP), and SGLang
# asserts it at start (PAR010).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --attn-dp-size 2 --disaggregation-mode decode --enable-tp-lm-head-all-to-all
