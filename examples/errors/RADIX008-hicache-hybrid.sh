#!/usr/bin/env bash
# RADIX008 (warning): the hierarchical cache on a GDN hybrid model; SGLang starts, and an open
# report (sglang#39830) shows host-tier prefix hits answering with another request's state.
# Clean twin: clean/hicache-hybrid.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-hierarchical-cache
