#!/usr/bin/env bash
# Clean twin of errors/PD004-pd-decode-context-parallel.sh: the prefill keeps its KV cache whole
# (DCP 1, no --enable-kv-cache-sharding); SGLang relays it to the decode's 8 DCP ranks (MLA).
MODEL=deepseek-ai/DeepSeek-V3.2
python3 -m sglang.launch_server --model-path $MODEL --tp-size 8 \
  --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 8 --dcp-size 8 \
  --disaggregation-mode decode &
wait
