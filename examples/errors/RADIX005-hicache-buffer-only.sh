#!/usr/bin/env bash
# RADIX005: the hierarchical cache in buffer_only mode keeps every page in a storage backend, and
# none is given: SGLang refuses it while it resolves the cache. Clean twin: clean/hicache-buffer-only.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B \
  --enable-hierarchical-cache --hicache-host-memory-mode buffer_only
