#!/usr/bin/env bash
# Clean twin of errors/PD004-pd-decode-context-parallel.sh: both servers split the KV cache the
# same way (--dcp-size 2 on each), so the transfer needs no relayout.
MODEL=meta-llama/Meta-Llama-3-8B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 2 --dcp-size 2 \
  --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 2 --dcp-size 2 \
  --disaggregation-mode decode &
wait
