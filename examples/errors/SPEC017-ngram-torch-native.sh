#!/usr/bin/env bash
# SPEC017: NGRAM with --attention-backend torch_native on SGLang 0.5.23. SGLang's argument checks accept the pair, it loads the weights, says "Application startup complete" and then crashes in its own warm-up: "AttributeError: 'NoneType' object has no attribute 'shape'" (https://github.com/sgl-project/sglang/issues/36352, open). Clean twin: the same launch on the triton backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --speculative-algorithm NGRAM \
  --attention-backend torch_native
