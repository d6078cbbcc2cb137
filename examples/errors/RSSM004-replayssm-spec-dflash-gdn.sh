#!/usr/bin/env bash
# RSSM004: ReplaySSM-spec under DFLASH on a GDN hybrid: the commit path is KDA-only, so SGLang refuses
# when it builds the state pools. Clean twin: clean/replayssm-spec-dflash-gdn.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \
  --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-Next-DFlash \
  --enable-linear-replayssm-spec
