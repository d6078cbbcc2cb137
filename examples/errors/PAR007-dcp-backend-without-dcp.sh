#!/usr/bin/env bash
# DeepSeek-V3.2 on 8 GPUs with the all-to-all DCP exchange asked for, but no decode context
# parallelism (--dcp-size defaults to 1): SGLang refuses the backend at start (PAR007).
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 \
  --dcp-comm-backend a2a
