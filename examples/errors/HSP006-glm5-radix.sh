#!/usr/bin/env bash
# HSP006: GLM-5 (DSA) with HiSparse but the radix cache on: SGLang asserts at start-up. Clean twin: clean/glm5-radix.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path zai-org/GLM-5 \
  --tp-size 8 --enable-hisparse --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
