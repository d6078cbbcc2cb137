#!/usr/bin/env bash
# RADIX007: a PD decode server with buffer_only host memory: its prefetch and offload paths bypass
# the buffer pipeline, so SGLang refuses it while it resolves the hierarchical cache.
# Clean twin: clean/decode-buffer-only.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --tp-size 4 \
  --disaggregation-mode decode --hicache-host-memory-mode buffer_only --hicache-storage-backend file
