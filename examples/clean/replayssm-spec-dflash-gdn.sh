#!/usr/bin/env bash
# Twin of errors/RSSM004-replayssm-spec-dflash-gdn.sh: DFLASH on the GDN hybrid without ReplaySSM-spec.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-Next-DFlash
