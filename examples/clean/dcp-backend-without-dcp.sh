#!/usr/bin/env bash
# Clean twin of errors/PAR007-dcp-backend-without-dcp.sh: the KV cache split over 8 decode
# context-parallel ranks, exchanged all-to-all.
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 \
  --dcp-size 8 --dcp-comm-backend a2a
