#!/usr/bin/env bash
# Clean twin of errors/PD005-pd-mxfp8-tp.sh: prefill and decode at one TP size, so the MXFP8 block
# scales travel as they are.
# Check with --gpu b200 (an MXFP8 KV cache runs on Blackwell only); the attention backend is named on both
# sides, so SGLang's SM100 override gives both one page size.
MODEL=Qwen/Qwen3-Next-80B-A3B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --kv-cache-dtype mxfp8 --attention-backend triton \
  --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --kv-cache-dtype mxfp8 --attention-backend triton \
  --disaggregation-mode decode &
wait
