#!/usr/bin/env bash
# HSP008: DeepSeek-V3.2 (DSA) with decode context parallel and HiCache: SGLang 0.5.22+ refuses at resolution ("DSA DCP does not support HiSparse or HiCache."). Clean twin: clean/dsa-dcp-hicache.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --dcp-size 8 --enable-hierarchical-cache \
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
