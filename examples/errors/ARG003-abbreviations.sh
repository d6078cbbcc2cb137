#!/usr/bin/env bash
# ARG003: `--tp` and `--trust-remote` are unique abbreviations in SGLang 0.5.23 (argparse accepts them) until a release adds a flag with the same prefix; then SGLang exits with "ambiguous option". Clean twin: the full names. `kdacheck lint --fix` writes them.
set -euo pipefail
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp 4 --trust-remote \
  --speculative-algorithm DSPARK --speculative-draft-model-path DRAFT --speculative-dspark-block-size 3 --speculative-num-draft-tokens 4
