#!/usr/bin/env bash
# Clean twin of errors/HSP006-glm5-radix.sh: HiSparse with --disable-radix-cache.
set -euo pipefail
python3 -m sglang.launch_server --model-path zai-org/GLM-5 \
  --tp-size 8 --enable-hisparse --disable-radix-cache --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
