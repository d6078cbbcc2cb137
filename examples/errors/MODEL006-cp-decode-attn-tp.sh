#!/usr/bin/env bash
# MODEL006: --enable-cp-decode-attn-tp on DeepSeek-V3.2, which is not in SGLang's CP_DECODE_ATTN_TP_SUPPORTED_ARCHS (DeepSeek-V4, GLM-5): SGLang refuses at resolution. Clean twin: clean/cp-decode-attn-tp.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 \
  --tp-size 8 --enable-cp-decode-attn-tp
