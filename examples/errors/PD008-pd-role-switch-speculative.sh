#!/usr/bin/env bash
# Qwen3-Next as a PD decode server that may flip to prefill at run time (--enable-pd-role-switch),
# with MTP speculative decoding: a flip does not rebuild the draft worker's state, so SGLang
# refuses the role switch with speculative decoding at start (PD008).
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --disaggregation-mode decode --enable-pd-role-switch \
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4
