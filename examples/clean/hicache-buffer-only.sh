#!/usr/bin/env bash
# Twin of errors/RADIX005-hicache-buffer-only.sh: buffer_only with its storage backend (a dense model: on
# hybrid ones HiCache meets an open runtime report, RADIX008).
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --enable-hierarchical-cache --hicache-host-memory-mode buffer_only --hicache-storage-backend file
