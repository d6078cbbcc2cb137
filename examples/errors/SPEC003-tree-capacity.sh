#!/usr/bin/env bash
# SPEC003: EAGLE 1/2/8: one step of topk 2 offers 2 tree candidates, 7 are asked for (torch.topk fails at the first draft step). Clean twin: EAGLE 3/2/8 (10 candidates).
set -euo pipefail
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B \
  --speculative-algorithm EAGLE \
  --speculative-num-steps 1 \
  --speculative-eagle-topk 2 \
  --speculative-num-draft-tokens 8 \
  --tp-size 2
