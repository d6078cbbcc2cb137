#!/usr/bin/env bash
# Clean twin of errors/PD008-pd-role-switch-speculative.sh: the decode server keeps MTP speculative
# decoding and its fixed role (no --enable-pd-role-switch).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --disaggregation-mode decode \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4
