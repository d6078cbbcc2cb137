#!/usr/bin/env bash
# Twin of errors/RADIX007-decode-buffer-only.sh: buffer_only host memory on the prefill server, which
# shares the standard scheduler path.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 4 \
  --disaggregation-mode prefill --enable-hierarchical-cache --hicache-host-memory-mode buffer_only --hicache-storage-backend file
