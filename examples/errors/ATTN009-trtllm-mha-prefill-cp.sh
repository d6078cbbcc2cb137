#!/usr/bin/env bash
# ATTN009: attention context parallelism with a trtllm_mha prefill on an H200 (kdacheck lint --gpu h200): SGLang refuses, the SM90 fmha_v2 prefill does not mask CP shards (SM100 only). Clean twin: clean/trtllm-mha-prefill-cp.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct \
  --tp-size 4 --attn-cp-size 2 --attention-backend trtllm_mha
