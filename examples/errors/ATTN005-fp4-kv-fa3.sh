#!/usr/bin/env bash
# ATTN005: the block-16 FP4 KV cache with the fa3 attention backend: SGLang 0.5.23 refuses to start with "KV4 MHA expects attention_backend to be one of ['triton', 'torch_native', 'flex_attention', 'trtllm_mha'], but got fa3". Check with --gpu h200. Clean twin: the triton backend.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 \
  --kv-cache-dtype fp4_mx_block16 \
  --attention-backend fa3
