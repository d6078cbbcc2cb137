#!/usr/bin/env bash
# Clean twin of errors/PD005-pd-mxfp8-tp.sh: prefill and decode at one TP size, so the MXFP8 block
# scales travel as they are.
MODEL=Qwen/Qwen3-Next-80B-A3B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --kv-cache-dtype mxfp8 \
  --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --kv-cache-dtype mxfp8 \
  --disaggregation-mode decode &
wait
