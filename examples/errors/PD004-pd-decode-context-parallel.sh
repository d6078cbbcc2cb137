#!/usr/bin/env bash
# DeepSeek-V3.2 in PD: the decode server splits its KV cache over 8 ranks (--dcp-size 8), the prefill
# shards its MLA KV cache over attention TP (--enable-kv-cache-sharding): the decode refuses the
# prefill when it first reaches it (PD004).
MODEL=deepseek-ai/DeepSeek-V3.2
python3 -m sglang.launch_server --model-path $MODEL --tp-size 8 \
  --disaggregation-mode prefill --enable-kv-cache-sharding &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 8 --dcp-size 8 \
  --disaggregation-mode decode &
wait
