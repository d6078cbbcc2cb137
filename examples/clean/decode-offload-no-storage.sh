#!/usr/bin/env bash
# Twin of errors/RADIX004-decode-offload-no-storage.sh: the decode server offloads to a file storage backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --tp-size 4 \
  --disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file
