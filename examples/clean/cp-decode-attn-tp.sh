#!/usr/bin/env bash
# Twin of errors/MODEL006-cp-decode-attn-tp.sh: GLM-5.1 (GlmMoeDsaForCausalLM) is in SGLang's list, so the flag is accepted.
set -euo pipefail
python3 -m sglang.launch_server --model-path zai-org/GLM-5.1 \
  --tp-size 8 --enable-cp-decode-attn-tp
