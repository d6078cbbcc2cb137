#!/usr/bin/env bash
# RADIX004: a PD decode server offloads its KV cache to a storage backend, and none is given:
# SGLang refuses it while it checks the cache flags. Clean twin: clean/decode-offload-no-storage.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --tp-size 4 \
  --disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache
