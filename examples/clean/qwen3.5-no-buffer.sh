#!/usr/bin/env bash
# Clean twin of errors/RADIX002-qwen3.5-no-buffer.sh: the same MTP launch with the prefix-cache strategy left to SGLang (auto: extra_buffer).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B \
  --tp-size 8 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
