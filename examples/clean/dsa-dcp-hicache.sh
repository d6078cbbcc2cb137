#!/usr/bin/env bash
# Twin of errors/HSP008-dsa-dcp-hicache.sh: decode context parallel without HiCache, a chain draft (topk 1).
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --dcp-size 8 \
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
