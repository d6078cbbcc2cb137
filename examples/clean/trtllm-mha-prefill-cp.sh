#!/usr/bin/env bash
# Twin of errors/ATTN009-trtllm-mha-prefill-cp.sh: on an H200, FA3 for the prefill, trtllm_mha for decode (kdacheck lint --gpu h200).
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --tp-size 4 --attn-cp-size 2 --prefill-attention-backend fa3 --decode-attention-backend trtllm_mha
