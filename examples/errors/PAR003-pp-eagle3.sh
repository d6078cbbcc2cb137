#!/usr/bin/env bash
# PAR003: pipeline parallelism speculates with EAGLE (NEXTN) only; EAGLE3 is refused with an AssertionError. Clean twin: clean/pp-eagle3.sh.
set -euo pipefail
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp-size 4 --pp-size 2 --speculative-algorithm EAGLE3 --speculative-draft-model-path lmsys/eagle3-draft
