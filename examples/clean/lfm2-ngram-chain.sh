#!/usr/bin/env bash
# LFM2.5, a short-conv hybrid, with NGRAM speculation as a chain (BFS breadth 1): SGLang keeps one conv
# window per conv layer and request, and its verify scratch is the conv windows alone (deduplicated
# for a chain; the temporal state is empty), sized for R + 1 rows (MEM001).
set -euo pipefail
python3 -m sglang.launch_server --model-path LiquidAI/LFM2.5-1.2B-Instruct \
  --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1 --speculative-num-draft-tokens 4
