#!/usr/bin/env bash
# Llama 3 8B in PD: the decode server splits its KV cache over 2 ranks (--dcp-size 2), the prefill
# keeps it whole (DCP 1). Only an MLA model's cache is relayed from DCP 1 to DCP 2: the decode
# refuses the prefill when it first reaches it (PD004).
MODEL=meta-llama/Meta-Llama-3-8B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 2 \
  --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 2 --dcp-size 2 \
  --disaggregation-mode decode &
wait
