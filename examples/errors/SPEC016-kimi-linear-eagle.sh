#!/usr/bin/env bash
# SPEC016: EAGLE on Kimi-Linear: SGLang 0.5.23's argument resolution accepts it, loads the weights, and the EAGLE draft worker then asks the target for its embedding and LM head: "'KimiLinearForCausalLM' object has no attribute 'get_embed_and_head'". Clean twin: DSPARK, the speculative path Kimi-Linear's model class supports.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 4 \
  --trust-remote-code \
  --speculative-algorithm EAGLE \
  --speculative-draft-model-path /models/kimi-linear-48b-eagle-draft \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4
