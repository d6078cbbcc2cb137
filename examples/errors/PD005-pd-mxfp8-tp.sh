#!/usr/bin/env bash
# Qwen3-Next in PD with an MXFP8 KV cache: prefill at TP 4, decode at TP 8. The head-sharded block
# scales cannot be re-sliced across attention TP sizes: the decode refuses the prefill (PD005).
# Check with --gpu b200 (an MXFP8 KV cache runs on Blackwell only); the attention backend is named on both
# sides, so SGLang's SM100 override gives both one page size.
MODEL=Qwen/Qwen3-Next-80B-A3B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --kv-cache-dtype mxfp8 --attention-backend triton \
  --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 8 --kv-cache-dtype mxfp8 --attention-backend triton \
  --disaggregation-mode decode &
wait
